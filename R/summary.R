#' Top functions of a profile
#'
#' `profile_summary()` tells where a profile spends its samples (or bytes, or
#' nanoseconds): for one sample type, the value of each function by *self*
#' (samples where it is the innermost frame) and by *total* (samples where it is
#' anywhere on the stack, counted once per sample however deep it recurses). This is
#' what `go tool pprof -top` and [utils::summaryRprof()] show.
#'
#' A v2 profile is a [dm::dm()], so `summary()` on it keeps dm's behaviour;
#' call `profile_summary()` for v2 profiles. For v1 objects `summary()` calls
#' `profile_summary()`.
#'
#' @param x A profile: a v2 `dm` (see [profile_v2]) or a v1 `profile_data` object.
#' @param type The sample type to sum, such as `"time"`, `"samples"`,
#'   `"cpu"`, `"alloc_space"` or `"alloc_size"`. By default the type `go tool
#'   pprof` shows: the sources' default sample type, else the last sample type
#'   (`inuse_space` for a Go heap profile); for Rprof profiles, `"time"` (see
#'   "Time"). Gauges (`small_vector_heap`, `large_vector_heap`, `node_heap`:
#'   heap sizes at each sample) cannot be summed: they are refused, and never
#'   the default.
#' @param n The number of rows to show (`Inf` for all).
#' @param by What a row stands for:
#'   - `"function"`: a function name (as `go tool pprof -top` and
#'     `summaryRprof()`),
#'   - `"location"`: a function at one line of its file (as `go tool pprof -top
#'     -lines`), like a row of the `locations` table; frames without a known
#'     line have line 0,
#'   - `"line"`: a line of a source file, whatever function it is in (as
#'     `summaryRprof(lines = "show")`). Only frames with a known line count:
#'     *self* goes to the innermost frame that has one, so it tells which line of
#'     your code was running. Rprof files have lines when recorded with
#'     `Rprof(line.profiling = TRUE)` from code with source references,
#'   - `"source"`: a source file (as `go tool pprof -top -files`); frames
#'     without a file share the row with an empty `filename`,
#'   - `"process"`: a source of the profile (a row of `sources`): each process
#'     of a parallel recording (see "Parallel code" in [profile_record()]),
#'     each run of a combined profile or of a database. A sample belongs to one
#'     source: *self* and *total* are both the value of the source's samples,
#'     and their percentages each source's share. (Not `"source"`, which
#'     names a source file, as `go tool pprof -files` does.)
#' @param sort Order rows by `"self"` (then total) or by `"total"` (then self),
#'   largest absolute value first.
#' @param relative_percentages After a verb that left samples or values out
#'   ([profile_focus()] and the other verbs of [profile_verbs]), percentages
#'   are of the whole profile before the verbs (`FALSE`, the default, as `go
#'   tool pprof` prints them after `-focus`) or of what the verbs left (`TRUE`,
#'   as `go tool pprof -relative_percentages`). See "Percentages after a verb".
#' @param object,... For `summary()`: the v1 profile and the arguments above.
#' @section Time:
#' An Rprof sample is a tick of R's profiling timer, and its `samples` value a
#' count of ticks. Summaries show them as the time they stand for: the sample
#' type `time`, in seconds, is each sample's count times the interval of its
#' source (the `period` of `sources`, which [read_rprof()] records in
#' nanoseconds of CPU time, with `period_type` `"cpu"`), and it is the default
#' type of a profile whose sources are all Rprof sources, in
#' `profile_summary()`, [profile_flamegraph()], [profile_view()] and
#' [write_speedscope()] (as `utils::summaryRprof()` shows seconds).
#' `type = "samples"` gives the counts. `time` is derived when summarising: it
#' is not a row of `sample_values`, and [write_folded()] writes counts unless
#' asked for `type = "time"`. Headers print times in s or ms, bytes in binary
#' units (`287.1 MiB`).
#' @section Samples counted:
#' Only the samples in the `samples` table count. A profile whose `samples`
#' were filtered on their own (`dm::dm_zoom_to(samples)`, `dplyr::filter()`,
#' `dm::dm_update_zoomed()`, which leave the rows of `sample_values`,
#' `sample_locations` and `sample_labels` of the removed samples in place) is
#' summarised over the samples it kept, and so are its flame graph, its folded
#' stacks, its view and its speedscope file; the rows of removed samples are
#' passed over. [write_pprof()] and [write_rprof()], which write a profile
#' whole, refuse such a profile with the error of [validate_profile()]
#' (`dm::dm_filter()` filters the other tables along).
#' @section Percentages after a verb:
#' The verbs that leave samples or values out ([profile_focus()],
#' [profile_ignore()], [profile_hide()], [profile_show()],
#' [profile_show_from()], [profile_prune_from()], [profile_filter_labels()],
#' [profile_select_types()], [profile_window()]) keep the totals of the
#' profile before the first of them, per source and sample type, in the
#' extension table `unfiltered_totals` (`source_id`, `type`, `unit`, `value`),
#' and summaries give percentages of those, as `go tool pprof` does after
#' `-focus`, `-ignore`, `-hide`, `-show` or `-tagfocus`; the header says so
#' and names the whole total. `relative_percentages = TRUE` gives them of what
#' is left instead. The table goes along with the later verbs
#' ([profile_scale()] scales it), with [combine_profiles()] (each input's
#' table, or its own totals, under its new source ids) and with
#' `dm::dm_filter()` on `sources`; [profile_diff()] gives percentages of the
#' base's total, as before. The file formats and databases do not keep it: a
#' profile written after a verb and read back, or appended to a database, is
#' whole.
#' @return A tibble of class `profile_summary` with the columns that identify a
#'   row (`name` for `by = "function"`; `name`, `filename` and `line` for
#'   `"location"`; `filename` and `line` for `"line"`; `filename` for
#'   `"source"`; `source_id` and `label` for `"process"`, the label naming
#'   the process (`"main 1234 on host (rprof)"`: its `process_role`,
#'   `process_id`, `host_name` and `source_type`) where `sources` has those
#'   columns, else its `source_label`, else its `source_uri`), then `self`, `self_pct`, `total` and
#'   `total_pct`. Percentages are of the value of all samples of the type
#'   (including samples without frames); of a difference ([profile_diff()]),
#'   whose values are signed (negative where `x` has less than its base), they
#'   are of the total of the base, as `go tool pprof -diff_base` shows them,
#'   and the header names that total. Rows with neither self nor total value
#'   are left out. Attributes `sample_type`, `unit`, `grand_total`, `by`,
#'   `sort`, `n_groups` (the rows with a value, of which the first `n` are
#'   shown), for a difference `base_total`, after a verb `whole_total`, and
#'   `relative_percentages` describe it; it prints with a header saying so,
#'   and its amounts and percentages in the type's unit as `go tool pprof
#'   -top` prints them (the columns stay numbers).
#' @export
#' @examples
#' x <- read_rprof(system.file("samples/rprof/1.out", package = "profile"))
#' profile_summary(x)
#' profile_summary(x, sort = "total", n = 5)
#'
#' lines <- read_rprof(system.file("samples/rprof/line.out", package = "profile"))
#' profile_summary(lines, by = "line")
#'
#' heap <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"))
#' profile_summary(heap, type = "alloc_space", by = "location")
#' profile_summary(heap, type = "alloc_space", by = "source")
#' # one row per source (a process, a run)
#' profile_summary(combine_profiles(x, lines), by = "process")
profile_summary <- function(x, type = NULL, n = 10,
                            by = c("function", "location", "line", "source", "process"),
                            sort = c("self", "total"), relative_percentages = FALSE) {
  by <- check_choice(by, c("function", "location", "line", "source", "process"), "by")
  sort <- check_choice(sort, c("self", "total"), "sort")
  check_summary_args(n, relative_percentages)
  with_profile_errors("invalid", "Can't summarise {.arg x}.", {
    parts <- summary_parts(x)
    sample_type <- choose_sample_type(parts, type)
    if (by == "process") {
      totals <- process_totals(parts, sample_type$type)
      groups <- totals$groups
      group_columns <- "source_id"
    } else {
      frames <- location_frames(parts)
      grouping <- summary_groups(frames, by)
      groups <- grouping$groups
      group_columns <- grouping$columns
      totals <- frame_key_totals(parts, sample_type$type, grouping$key, vctrs::vec_size(groups))
    }

    grand_total <- totals$grand_total
    is_diff <- is_diff_parts(parts, sample_type$type)
    whole_total <- if (!is_diff) unfiltered_total(parts, sample_type$type)
    percent_of <- percentages_of(parts, sample_type$type, grand_total, relative_percentages)
    percent <- function(v) if (percent_of == 0) rep(NA_real_, length(v)) else 100 * v / percent_of
    out <- groups
    out$self <- totals$self_value
    out$self_pct <- percent(out$self)
    out$total <- totals$total
    out$total_pct <- percent(out$total)
    out <- out[out$self != 0 | out$total != 0, , drop = FALSE]
    # By absolute value, as Go sorts: a difference's largest shrinkage counts.
    value_order <- list(-abs(out$total), -abs(out$self))
    if (sort == "self") {
      value_order <- rev(value_order)
    }
    # ties in the byte order of the row's name, file and line
    rank <- do.call(order, c(value_order, unname(as.list(out[group_columns])), method = "radix"))
    n_groups <- nrow(out)
    out <- out[utils::head(rank, min(n, n_groups)), , drop = FALSE]
    new_profile_summary(out,
      sample_type = sample_type$type, unit = sample_type$unit,
      grand_total = grand_total, by = by, sort = sort, n_groups = n_groups,
      base_total = if (is_diff) percent_of, whole_total = whole_total,
      relative_percentages = relative_percentages
    )
  })
}

check_summary_args <- function(n, relative_percentages, call = rlang::caller_env()) {
  if (!is.numeric(n) || length(n) != 1 || is.na(n) || n < 0) {
    abort_argument("{.arg n} must be a single number >= 0 (or {.code Inf}).", call = call)
  }
  if (!rlang::is_bool(relative_percentages)) {
    abort_argument(
      "{.arg relative_percentages} must be {.code TRUE} or {.code FALSE}.",
      call = call
    )
  }
}

# The total the percentages of a summary of type `type` are of: of a
# difference, the base's total, as in Go's -top (after a verb, the base's
# total before the verbs, as Go's -diff_base with -focus and the like, unless
# -relative_percentages); after a verb that left samples out, the whole
# profile's, as Go's unless -relative_percentages; else the profile's own.
percentages_of <- function(parts, type, grand_total, relative) {
  if (is_diff_parts(parts, type)) {
    whole_base <- if (!relative) unfiltered_base_total(parts, type)
    return(if (is.null(whole_base)) base_total(parts, type) else whole_base)
  }
  whole_total <- if (!relative) unfiltered_total(parts, type)
  if (is.null(whole_total)) grand_total else whole_total
}

# Whether the summary of type `type` is of a difference: the base has
# samples, or had some of the type before the verbs.
is_diff_parts <- function(parts, type) {
  length(parts$base_samples) > 0L || isTRUE(unfiltered_base_total(parts, type) != 0)
}

# The total of type `type` of the base of a difference before the verbs, as a
# positive number (NULL where no verb left anything out or there is no base).
unfiltered_base_total <- function(parts, type) {
  base <- parts$sources$source_id[parts$sources[["diff_base"]] %in% TRUE]
  if (!length(base)) {
    return(NULL)
  }
  total <- unfiltered_total(parts, type, sources = base)
  if (is.null(total)) NULL else abs(total)
}

# summary() of a v1 object (R/v1-object.R) is its profile_summary().
#' @rdname profile_summary
#' @export
summary.profile_data <- function(object, ...) {
  profile_summary(object, ...)
}

# The rows of a summary by `by` (`groups`, of the columns `columns` of
# `frames`) and the key of each frame (its group's row; 0: not counted, by line
# the frames without a known line).
summary_groups <- function(frames, by) {
  columns <- switch(by,
    "function" = "name",
    location = c("name", "filename", "line"),
    line = c("filename", "line"),
    source = "filename"
  )
  counted <- if (by == "line") frames$line > 0L else rep(TRUE, nrow(frames))
  frame_groups <- frames[counted, columns]
  groups <- vctrs::vec_unique(frame_groups)
  key <- integer(nrow(frames))
  key[counted] <- vctrs::vec_match(frame_groups, groups)
  list(groups = groups, columns = columns, key = key)
}

# The value of type `type` of the base of a difference (the samples of
# `parts$base_samples`), as a positive number; of a derived type, that of the
# type it comes from times the factor of each sample's source.
base_total <- function(parts, type) {
  values <- parts$values
  derived <- parts$derived
  if (!is.null(derived) && identical(type, derived$type)) {
    base <- values$type == derived$from & values$sample_id %in% parts$base_samples
    source <- parts$samples$source_id[match(values$sample_id[base], parts$samples$sample_id)]
    factor <- derived$factor[match(source, derived$source_id)]
    return(abs(sum(values$value[base] * factor, na.rm = TRUE)))
  }
  abs(sum(values$value[values$type == type & values$sample_id %in% parts$base_samples]))
}

new_profile_summary <- function(x, sample_type, unit, grand_total, by, sort, n_groups,
                                base_total = NULL, whole_total = NULL,
                                relative_percentages = FALSE) {
  tibble::new_tibble(x,
    nrow = nrow(x), class = "profile_summary",
    sample_type = sample_type, unit = unit, grand_total = grand_total,
    by = by, sort = sort, n_groups = n_groups, base_total = base_total,
    whole_total = whole_total, relative_percentages = relative_percentages
  )
}

# The total of type `type` of the whole profile before the verbs
# (`unfiltered_totals`, see unfiltered_totals_of()), over the sources the
# profile has (or `sources` of them); of a derived type, that of the type it
# comes from times each source's factor. NULL where no verb left anything out.
unfiltered_total <- function(parts, type, sources = parts$sources$source_id) {
  totals <- parts$unfiltered_totals
  if (is.null(totals)) {
    return(NULL)
  }
  totals <- totals[totals$source_id %in% sources, , drop = FALSE]
  derived <- parts$derived
  if (!is.null(derived) && identical(type, derived$type)) {
    rows <- totals$type == derived$from
    factor <- derived$factor[match(totals$source_id[rows], derived$source_id)]
    return(sum(totals$value[rows] * factor, na.rm = TRUE))
  }
  sum(totals$value[totals$type == type])
}

# pillar (imported by tibble anyway) prints the header of a summary.
#' @importFrom pillar tbl_sum
#' @export
tbl_sum.profile_summary <- function(x, ...) {
  type <- attr(x, "sample_type")
  if (is.null(type)) {
    return(NextMethod())
  }
  unit <- attr(x, "unit")
  by <- attr(x, "by")
  groups <- switch(by,
    "function" = "functions",
    location = "locations",
    line = "lines",
    source = "files",
    process = "sources"
  )
  base_total <- attr(x, "base_total")
  whole_total <- attr(x, "whole_total")
  filtered <- !is.null(whole_total) && !isTRUE(all.equal(whole_total, attr(x, "grand_total")))
  total <- format_compact_amount(attr(x, "grand_total"), unit)
  c(
    "Profile summary" = sprintf("%s (%s) by %s", type, unit, by),
    "Total" = if (is.null(base_total)) total else sprintf("%s (difference: x minus base)", total),
    # Go's -top says "of 244ms total" for a difference, and after -focus
    # the whole profile's total unless -relative_percentages
    "Percentages" = if (!is.null(base_total)) {
      sprintf("of the base's total, %s", format_compact_amount(base_total, unit))
    } else if (filtered && isTRUE(attr(x, "relative_percentages"))) {
      sprintf(
        "of this total (relative_percentages); the whole profile's is %s",
        format_compact_amount(whole_total, unit)
      )
    } else if (filtered) {
      sprintf(
        "of the whole profile before the verbs, %s (relative_percentages = TRUE: of this total)",
        format_compact_amount(whole_total, unit)
      )
    },
    "Rows" = sprintf(
      "top %d of %d %s by %s value", nrow(x), attr(x, "n_groups"), groups, attr(x, "sort")
    )
  )
}

# The columns of a summary stay numbers (they are data); they print in the
# unit of the sample type, as go tool pprof -top prints them ("2.51s",
# "406.25KiB", "12.36%"). The amounts of a column share one unit.
#' @importFrom pillar ctl_new_pillar
#' @export
ctl_new_pillar.profile_summary <- function(controller, x, width, ..., title = NULL) {
  out <- NextMethod()
  unit <- attr(controller, "unit")
  column <- if (rlang::is_string(title)) title else ""
  if (is.null(out) || is.null(unit) || !is.numeric(x)) {
    return(out)
  }
  text <- switch(column,
    self = ,
    total = format_compact_amount(x, unit),
    self_pct = ,
    total_pct = format_percent(x)
  )
  if (is.null(text)) {
    return(out)
  }
  shaft <- pillar::new_pillar_shaft_simple(text, align = "right", na = "")
  if (!is.null(width) && shaft_min_width(shaft) > width) {
    return(NULL)
  }
  out$data <- pillar::pillar_component(shaft)
  out
}

# The narrowest width of a pillar shaft: pillar keeps it in the shaft's
# attributes (its own accessor, get_min_width(), is not exported).
shaft_min_width <- function(shaft) {
  min_width <- attr(shaft, "min_width")
  if (is.null(min_width)) attr(shaft, "width") else min_width
}

# Percentages as go tool pprof prints them: two decimals, two significant
# digits under 1 %, "100%" from 99.95 % on.
format_percent <- function(x) {
  out <- ifelse(abs(x) >= 99.95 & abs(x) <= 100.05, "100%",
    ifelse(abs(x) >= 1, sprintf("%.2f%%", x), sprintf("%.2g%%", x))
  )
  out[is.na(x)] <- NA_character_
  out
}
