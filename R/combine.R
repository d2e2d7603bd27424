#' Combine profiles
#'
#' `combine_profiles()` joins several profiles into one v2 profile, for example
#' the Rprof files of many runs, or an Rprof time profile and a Go heap profile.
#' Nothing is lost or aggregated: every sample keeps its values (with their own
#' types and units) and its stack, and points to the source it came from.
#'
#' The inputs are combined in one pass, in the order given:
#'
#' - Every row of each input's `sources` table is kept with all its columns and
#'   gets a new `source_id`; the sources of the result are those of the first
#'   input, then those of the second, and so on.
#' - Samples get new, consecutive `sample_id`s in the same order. Their rows in
#'   `sample_values`, `sample_locations` and `sample_labels`, and the rows of
#'   `sample_types`, `mappings` and `source_comments`, follow with new ids.
#' - With `merge = TRUE`, functions with the same `name`, `system_name`,
#'   `filename` and `start_line` (in different inputs or in the same one) become
#'   one row of `functions`, and locations
#'   that are then identical (same function, line and every other column,
#'   including the location an inlined frame belongs to) become one row of
#'   `locations`. Samples of different runs thus point to the same function,
#'   which is what per-function summaries across runs need. Mappings (pprof)
#'   belong to one source and are never merged, so neither are the locations
#'   that use them. With `merge = FALSE` every input keeps its own rows.
#' - The ids of every table run from 1 to the number of rows, in order of first
#'   appearance.
#' - `meta` has one `version` row (`"2.0"`). Every other key is kept with the
#'   first value seen; an input that has the same key with a different value adds
#'   it under the key `<key>@<k>`, where `k` is the position of that input (and
#'   appends `@<k>` again in the unlikely case that this key is taken too).
#'
#' v1 inputs (`profile_data` objects) are converted with
#' [profile_v2_from_v1()] first. Tables and columns that are not part of the
#' v2 format or its extensions (see [profile_v2]) cannot be combined, since their
#' ids are unknown; they are dropped with a warning.
#'
#' Each input is checked as [validate_profile()] does, except that the keys of
#' the `dm` object itself need not be set (the result gets its own). When many
#' profiles are combined, a progress bar (see [cli::cli_progress_bar()]) shows
#' how far it has got if it takes more than a few seconds.
#'
#' @param ... Profiles: v2 `dm` objects or v1 `profile_data` objects, or a single
#'   list of them.
#' @param merge `TRUE` (default) to merge identical functions and locations of
#'   different inputs into one row, `FALSE` to keep the rows of every input.
#' @return A valid v2 profile (a `dm`, see [profile_v2]).
#'   An input that is not a profile gives an error of class
#'   `profile_error_argument`, an invalid profile one of class
#'   `profile_error_invalid` (see [profile_error]); the message names the
#'   position of the input.
#' @export
#' @examples
#' a <- read_rprof(system.file("samples/rprof/1.out", package = "profile"))
#' b <- read_rprof(system.file("samples/rprof/gc.out", package = "profile"))
#' ab <- combine_profiles(a, b)
#' ab$sources[c("source_id", "source_type", "source_uri")]
#' nrow(ab$samples) == nrow(a$samples) + nrow(b$samples)
#'
#' # A list of profiles works the same way:
#' identical(dm::dm_get_tables(combine_profiles(list(a, b))), dm::dm_get_tables(ab))
#'
#' # Different formats and sample types combine too:
#' heap <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"))
#' mixed <- combine_profiles(a, heap)
#' unique(mixed$sample_values[c("type", "unit")])
combine_profiles <- function(..., merge = TRUE) {
  with_profile_errors(
    "invalid", "Can't combine the profiles.", combine_profiles_impl(..., merge = merge)
  )
}

combine_profiles_impl <- function(..., merge, call = rlang::caller_env()) {
  if (!rlang::is_bool(merge)) {
    abort_argument("{.arg merge} must be {.code TRUE} or {.code FALSE}.", call = call)
  }
  inputs <- list(...)
  in_list <- length(inputs) == 1L && is_list_of_profiles(inputs[[1L]])
  if (in_list) {
    inputs <- inputs[[1L]]
  }
  labels <- input_labels(inputs, in_list)

  n <- length(inputs)
  # the totals before the verbs (unfiltered_totals_of()): kept where an
  # input has them, each input's own for the others
  keep_totals <- any(vapply(inputs, function(x) {
    is_v2(x) && "unfiltered_totals" %in% names(x)
  }, TRUE))
  totals <- vector("list", n)
  combiner <- rust_value(
    ffi_profile_combine_start(merge), "Can't combine the profiles.",
    call = call
  )
  dropped <- character()
  cli::cli_progress_bar("Combining profiles", total = n, clear = TRUE)
  for (i in seq_len(n)) {
    tables <- combine_input_tables(inputs[[i]], labels[[i]], call = call)
    if (keep_totals) {
      totals[[i]] <- list(table = unfiltered_totals_of(tables), ids = tables$sources$source_id)
    }
    tables$unfiltered_totals <- NULL
    dropped <- union(dropped, unknown_table_parts(tables))
    res <- ffi_profile_combine_add(combiner, bundle_from_tables(tables))
    with_input_label(rust_value(res, "Invalid v2 profile.", call = NULL), labels[[i]], call = call)
    cli::cli_progress_update()
  }
  cli::cli_progress_done()
  if (length(dropped)) {
    cli::cli_warn(
      c(
        "{.fn combine_profiles} dropped tables and columns that are not part of the v2 format:",
        i = "{.field {dropped}}"
      ),
      class = c("profile_warning_dropped", "profile_warning")
    )
  }
  bundle <- rust_value(
    ffi_profile_combine_finish(combiner, compact_columns_option(call = call)),
    "Can't combine the profiles.",
    call = call
  )
  if (!keep_totals) {
    return(dm_from_bundle(bundle))
  }
  tables <- decode_bundle(bundle)
  tables$unfiltered_totals <- combined_totals(totals, tables$sources$source_id)
  dm_from_v2_tables(tables)
}

# The inputs' totals before the verbs under the ids of their sources in the
# combination, whose sources are those of the inputs in order.
combined_totals <- function(totals, source_ids) {
  if (length(source_ids) != sum(vapply(totals, function(t) length(t$ids), 1L))) {
    return(NULL)
  }
  offset <- 0L
  parts <- lapply(totals, function(input) {
    table <- input$table
    table$source_id <- source_ids[offset + match(table$source_id, input$ids)]
    offset <<- offset + length(input$ids)
    table
  })
  out <- vctrs::vec_rbind(!!!parts)
  out[!is.na(out$source_id), , drop = FALSE]
}

# A single argument that is a plain list (neither a profile nor a data frame) is a
# list of profiles.
is_list_of_profiles <- function(x) {
  is.list(x) && !is.object(x)
}

# How the error messages name each input: its argument position or name, or its
# position in the list.
input_labels <- function(inputs, in_list) {
  n <- length(inputs)
  nms <- names(inputs)
  if (is.null(nms)) nms <- rep("", n)
  what <- if (in_list) "Element" else "Argument"
  ifelse(
    !is.na(nms) & nzchar(nms),
    sprintf("%s %d (`%s`)", what, seq_len(n), nms),
    sprintf("%s %d", what, seq_len(n))
  )
}

# The tables of one input as v2 (a v1 input is converted), after the checks that
# validate_profile() makes in R, except that the dm need not carry the keys: the
# result gets its own. (The content rules are checked by the Rust side when the
# input is added.) Errors name the input by `label`.
combine_input_tables <- function(x, label, call) {
  if (!inherits(x, c("dm", "profile_data"))) {
    abort_not_profile(x, "{label}", label = label, call = call)
  }
  with_input_label(
    {
      if (!is_v2(x)) {
        x <- profile_v2_from_v1(x)
      }
      check_v2_tables(local_profile(x))
    },
    label,
    call = call
  )
}

# Evaluates `expr`; a profile_error it raises is raised again as the reason why the
# input `label` is not a valid profile, of the same kind.
with_input_label <- function(expr, label, call) {
  tryCatch(expr, profile_error = function(e) {
    abort_profile(e$kind, "{label} is not a valid profile.", label = label, call = call, parent = e)
  })
}

# Names of the tables and columns of `tables` that the v2 schema does not know.
unknown_table_parts <- function(tables) {
  schema <- v2_schema()
  out <- setdiff(names(tables), schema$tables)
  for (t in intersect(names(tables), schema$tables)) {
    cols <- setdiff(names(tables[[t]]), schema$columns[[t]]$name)
    out <- c(out, if (length(cols)) paste0(t, ".", cols))
  }
  out
}
