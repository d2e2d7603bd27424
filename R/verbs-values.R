#' @rdname profile_verbs
#' @section Values, differences and time:
#' - `profile_scale(x, factor, types = NULL, unit = NULL)` multiplies the
#'   values of every sample type, or of the types named in `types`, by
#'   `factor` (a finite number). Values stay doubles: nothing is rounded, and
#'   no sample is dropped (Go's `Scale` rounds to integers and drops the
#'   samples left at 0). The values keep their unit (the `unit` of
#'   `sample_values` and `sample_types`) unless `unit` names the one they are
#'   in now: Rprof counts of 5 ms ticks times 5 are milliseconds, `unit =
#'   "milliseconds"`. (Summaries show Rprof ticks in seconds anyway, the
#'   sample type `time`: see "Time" in [profile_summary()]; counts given
#'   another unit no longer make it.)
#' - `profile_aggregate(x)` merges the samples of each source that have the
#'   same stack and the same labels into one, the first of them (its id and
#'   its row), as [write_pprof()] merges them: values of a type are summed,
#'   so the total of each type is unchanged; except gauges, the heap sizes of
#'   Rprof's memory profiling (`small_vector_heap`, `large_vector_heap`,
#'   `node_heap`: a level at each sample, whose sum means nothing), which
#'   keep their largest value. A merged sample's `time` is `NA`, as it was
#'   taken at several times; a sample merged with no other keeps its time.
#'   `go tool pprof -top` and `-traces` show the same before and after.
#' - `profile_diff(x, base)` is `x` minus `base`, as `go tool pprof
#'   -diff_base=base x`: the samples of both, those of `base` with every value
#'   negated and the label `pprof::base` = `"true"` (which Go adds too, and
#'   shows in `-traces`), combined as [combine_profiles()] combines them (the
#'   functions and locations of both merged; tables and columns of your own
#'   are not kept). The column `diff_base` of `sources` is `FALSE` for the
#'   sources of `x` and `TRUE` for those of `base`. The per-sample columns of
#'   the result hold `x`'s own rows and then the base's: the result shares
#'   `x`'s memory until one of them is modified (see "Compact columns" in
#'   [profile_v2]). [profile_summary()] shows
#'   signed values (a function that takes less time in `x` has a negative
#'   self and total), sorted by their absolute value, with percentages of the
#'   total of `base`, as Go's `-top` does for a difference;
#'   [profile_flamegraph()] draws a difference flame graph.
#' - `profile_window(x, from = NULL, to = NULL)` keeps the samples taken from
#'   `from` to before `to` (`from <= time < to`), in seconds from the start
#'   of their source (`samples$time`, which [read_rprof()] records; a pprof
#'   profile has no time per sample). `NULL` leaves that side open. Samples
#'   without a time are dropped.
#' @param factor A finite number, that values are multiplied by.
#' @param unit `NULL` (the values keep their unit) or a single string: the
#'   unit of the scaled values.
#' @param types `NULL` (every sample type) or a character vector of sample
#'   types of `x` (the `type` column of `sample_values`).
#' @param base The profile to subtract from `x` (a v2 `dm` or a v1
#'   `profile_data` object).
#' @param from,to `NULL` or a single number: the start (included) and end
#'   (excluded) of the window, in seconds.
#' @examples
#' x <- read_rprof(system.file("samples/rprof/1.out", package = "profile"))
#'
#' # Time is shown in seconds; the counts of 5 ms ticks as milliseconds:
#' profile_summary(x, n = 3)
#' x |>
#'   profile_scale(5, types = "samples", unit = "milliseconds") |>
#'   profile_summary(n = 3)
#' # One sample per stack
#' nrow(x$samples)
#' nrow(profile_aggregate(x)$samples)
#'
#' # What changed between two runs? (here: with and without the sorting)
#' base <- profile_ignore(x, "^sort")
#' profile_diff(x, base) |> profile_summary(n = 3)
#' profile_diff(x, base) |> profile_flamegraph()
#'
#' # The first 0.2 seconds of the run
#' profile_window(x, to = 0.2) |> profile_summary(n = 3)
#' @export
profile_scale <- function(x, factor, types = NULL, unit = NULL) {
  call <- rlang::current_env()
  with_profile_errors("invalid", "Can't apply {.code scale} to {.arg x}.", {
    tables <- verb_tables(x, call)
    check_scale_args(factor, types, unit, call)
    factor <- as.double(factor)
    new_unit <- if (is.null(unit)) NA_character_ else as_valid_utf8(unit)
    changes <- c(per_sample_tables, if (!is.null(unit)) "sample_types")
    scale <- function(bundle, compact) {
      ffi_profile_scale(bundle, factor, types, new_unit, compact)
    }
    # the whole profile's totals, scaled alike
    totals <- tables[["unfiltered_totals"]]
    if (!is.null(totals)) {
      scaled <- if (is.null(types)) rep(TRUE, nrow(totals)) else totals$type %in% types
      totals$value[scaled] <- totals$value[scaled] * factor
      if (!is.null(unit)) totals$unit[scaled] <- new_unit
      tables$unfiltered_totals <- totals
    }
    apply_verb(tables, scale,
      call = call, changes = changes, with = c("locations", "sample_types")
    )
  })
}

# The checks of profile_scale()'s arguments.
check_scale_args <- function(factor, types, unit, call) {
  valid_factor <- is.numeric(factor) && length(factor) == 1L && is.finite(factor)
  valid_types <- is.null(types) || (is.character(types) && !anyNA(types) && length(types) > 0)
  valid_unit <- is.null(unit) || (rlang::is_string(unit) && nzchar(unit))
  if (!valid_factor) {
    abort_argument(
      "{.arg factor} must be a single finite number, not {.obj_type_friendly {factor}}.",
      factor = factor, call = call
    )
  }
  if (!valid_types) {
    abort_argument(
      paste(
        "{.arg types} must be {.code NULL} or a character vector of sample types, not",
        "{.obj_type_friendly {types}}."
      ),
      types = types, call = call
    )
  }
  if (!valid_unit) {
    abort_argument(
      paste(
        "{.arg unit} must be {.code NULL} or a single non-empty string, not",
        "{.obj_type_friendly {unit}}."
      ),
      unit = unit, call = call
    )
  }
}

#' @rdname profile_verbs
#' @export
profile_aggregate <- function(x) {
  call <- rlang::current_env()
  with_profile_errors("invalid", "Can't apply {.code aggregate} to {.arg x}.", {
    tables <- verb_tables(x, call)
    apply_verb(tables, ffi_profile_aggregate, call = call, same_totals = TRUE)
  })
}

#' @rdname profile_verbs
#' @export
profile_diff <- function(x, base) {
  call <- rlang::current_env()
  with_profile_errors("invalid", "Can't subtract {.arg base} from {.arg x}.", {
    x_tables <- verb_tables(x, call)
    base_tables <- verb_tables(base, call, arg = "base")
    bundle <- rust_value(
      ffi_profile_diff(
        bundle_from_tables(x_tables), bundle_from_tables(base_tables), compact_columns_option(call)
      ),
      "Can't subtract {.arg base} from {.arg x}.",
      call = call
    )
    dm_from_bundle(bundle)
  })
}

#' @rdname profile_verbs
#' @export
profile_window <- function(x, from = NULL, to = NULL) {
  call <- rlang::current_env()
  with_profile_errors("invalid", "Can't apply {.code window} to {.arg x}.", {
    tables <- verb_tables(x, call)
    check_window_bound(from, "from", call)
    check_window_bound(to, "to", call)
    if (!is.null(from) && !is.null(to) && from > to) {
      abort_argument(
        "The window must not start after it ends: {.arg from} is {from} s, {.arg to} is {to} s.",
        from = from, to = to, call = call
      )
    }
    times <- tables$samples[["time"]]
    if (is.null(times) || (length(times) && all(is.na(times)))) {
      abort_argument(c(
        "{.arg x} has no sample times, so it can't be cut into a time window.",
        i = paste(
          "{.field samples$time} is {if (is.null(times)) 'absent' else 'NA for every sample'};",
          "only Rprof files record when each sample was taken."
        )
      ), times = times, call = call)
    }
    apply_verb(tables, function(bundle, compact) {
      ffi_profile_window(
        bundle, if (!is.null(from)) as.double(from), if (!is.null(to)) as.double(to), compact
      )
    }, call = call)
  })
}

# Checks that a bound of profile_window() is NULL or a single number (not NA).
check_window_bound <- function(bound, arg, call) {
  if (!is.null(bound) && (!is.numeric(bound) || length(bound) != 1L || is.na(bound))) {
    abort_argument(
      paste(
        "{.arg {arg}} must be {.code NULL} or a single number of seconds, not",
        "{.obj_type_friendly {bound}}."
      ),
      arg = arg, bound = bound, call = call
    )
  }
}
