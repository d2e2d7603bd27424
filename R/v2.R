#' Build a v2 profile
#'
#' `new_profile_v2()` assembles the tables of a v2 profile into a [dm::dm()]
#' object with its primary and foreign keys set, in the order the format fixes.
#' See [profile_v2] for the tables and their columns. The result is validated.
#'
#' @param meta,sources,samples,sample_values,sample_locations,locations,functions
#'   Data frames with the columns of the seven required tables.
#' @param ... Extension tables as named data frames (`sample_types`,
#'   `sample_labels`, `mappings`, `source_comments`, or tables of your own).
#' @return A `dm` object of class `profile_v2` (see "The class" in
#'   [profile_v2]): a valid v2 profile.
#' @export
#' @examples
#' p <- new_profile_v2(
#'   meta = tibble::tibble(key = "version", value = "2.0"),
#'   sources = tibble::tibble(
#'     source_id = 1L, source_type = "manual", source_uri = NA_character_,
#'     source_timestamp = NA_real_
#'   ),
#'   samples = tibble::tibble(sample_id = 1:2, source_id = 1L),
#'   sample_values = tibble::tibble(
#'     sample_id = 1:2, type = "samples", unit = "count", value = 1
#'   ),
#'   sample_locations = tibble::tibble(
#'     sample_id = c(1L, 1L, 2L), depth = c(1L, 2L, 1L), location_id = c(1L, 2L, 2L)
#'   ),
#'   locations = tibble::tibble(location_id = 1:2, function_id = 1:2, line = 0L),
#'   functions = tibble::tibble(
#'     function_id = 1:2, name = c("f", "main"), system_name = c("f", "main"),
#'     filename = "", start_line = 0L
#'   )
#' )
#' p
new_profile_v2 <- function(meta, sources, samples, sample_values, sample_locations,
                           locations, functions, ...) {
  with_profile_errors("invalid", "Can't make a v2 profile of these tables.", {
    new_profile_v2_impl(
      meta, sources, samples, sample_values, sample_locations, locations, functions, ...
    )
  })
}

new_profile_v2_impl <- function(meta, sources, samples, sample_values, sample_locations,
                                locations, functions, ..., call = rlang::caller_env()) {
  tables <- list(
    meta = meta, sources = sources, samples = samples,
    sample_values = sample_values, sample_locations = sample_locations,
    locations = locations, functions = functions
  )
  extra <- list(...)
  if (length(extra) && (is.null(names(extra)) || any(names(extra) == ""))) {
    abort_argument("Extension tables passed to {.fn new_profile_v2} must be named.", call = call)
  }
  if (anyDuplicated(names(extra)) || any(names(extra) %in% names(tables))) {
    abort_argument(
      "Extension tables passed to {.fn new_profile_v2} must have names of their own.",
      call = call
    )
  }
  tables <- c(tables, extra)
  for (t in names(tables)) {
    tables[[t]] <- table_as_tibble(tables[[t]], t, call)
  }
  x <- dm_from_v2_tables(tables)
  validate_v2(x, call = call)
  x
}

# `df`, the table `t` given to new_profile_v2(), as a tibble: a data frame
# whose columns have names, each name once.
table_as_tibble <- function(df, t, call) {
  if (!is.data.frame(df)) {
    abort_argument("Table {.field {t}} must be a data frame.", t = t, call = call)
  }
  cols <- names(df)
  if (anyNA(cols) || any(cols == "") || anyDuplicated(cols)) {
    abort_profile("invalid",
      paste(
        "The columns of table {.field {t}} must have names, each name once; it has",
        "{.field {cols}}."
      ),
      t = t, cols = cols, call = call
    )
  }
  tibble::as_tibble(df)
}

# The keyed dm from a named list of tibbles (required tables first). No validation.
#
# Setting the 16 keys with dm_add_pk()/dm_add_fk() costs about 9 ms (each call goes
# through tidyselect), more than reading a 30k-sample file. The keys depend only on
# the table and column names, so the keyed dm is built once per shape with empty
# tables and cached; dm_mutate_tbl() (exported by dm, keeps the keys, checks that
# the column names are unchanged) then swaps the data in.
dm_from_v2_tables <- function(tables) {
  shape <- paste(
    names(tables),
    vapply(tables, function(df) paste(names(df), collapse = "\x1f"), character(1)),
    sep = "\x1e", collapse = "\x1d"
  )
  template <- keyed_dm_cache[[shape]]
  if (is.null(template)) {
    template <- keyed_dm(lapply(tables, function(df) df[0L, ]))
    keyed_dm_cache[[shape]] <- template
  }
  as_profile_v2(dm::dm_mutate_tbl(template, !!!tables))
}

# A dm made by this package's readers, verbs and combine_profiles() carries
# the class `profile_v2` before `dm`, so that print() and format() say what the
# profile holds (R/format.R). dm's own verbs give back a plain `dm`, which is
# still a profile: nothing in the package asks for the subclass ("The class"
# in ?profile_v2).
as_profile_v2 <- function(x) {
  class(x) <- c("profile_v2", setdiff(class(x), "profile_v2"))
  x
}

keyed_dm_cache <- new.env(parent = emptyenv())

# The foreign keys of the format that the dm records, as positions in the
# schema's list. dm's graph functions (`dm_filter()`, `dm_flatten_to_tbl()`,
# `dm_draw()`) need the keys to form a tree, so two keys stay out of the dm and
# are checked by validate_profile() alone: `locations.inlined_into` (a table
# referring to itself) and `mappings.source_id` (it would close the cycle
# sources - samples - sample_locations - locations - mappings - sources).
dm_recorded_fks <- function() {
  fk <- v2_schema()$foreign_keys
  left_out <- fk$table == fk$ref_table |
    (fk$table == "mappings" & fk$column == "source_id")
  which(!left_out)
}

# The dm with the keys of the format set by dm's key functions.
keyed_dm <- function(tables) {
  schema <- v2_schema()
  x <- dm::new_dm(tables)
  pk <- schema$primary_keys
  for (i in seq_along(pk$table)) {
    if (pk$table[[i]] %in% names(tables) && pk$column[[i]] %in% names(tables[[pk$table[[i]]]])) {
      x <- dm::dm_add_pk(x, !!pk$table[[i]], !!rlang::sym(pk$column[[i]]))
    }
  }
  fk <- schema$foreign_keys
  for (i in dm_recorded_fks()) {
    child <- fk$table[[i]]
    parent <- fk$ref_table[[i]]
    if (all(c(child, parent) %in% names(tables)) && fk$column[[i]] %in% names(tables[[child]])) {
      x <- dm::dm_add_fk(x, !!child, !!rlang::sym(fk$column[[i]]), !!parent)
    }
  }
  unfiltered_totals_key(x, tables)
}

# The key of the package's own extension table `unfiltered_totals` to
# `sources`, so that dm_filter() on sources filters it.
unfiltered_totals_key <- function(x, tables) {
  if (!"source_id" %in% names(tables[["unfiltered_totals"]])) {
    return(x)
  }
  dm::dm_add_fk(x, "unfiltered_totals", "source_id", "sources")
}

# The tables of a v2 dm as a named list of tibbles.
v2_tables <- function(x) {
  dm::dm_get_tables(x, keyed = FALSE)
}

# The v2 dm built from a bundle returned by Rust (readers, combine).
dm_from_bundle <- function(bundle) {
  dm_from_v2_tables(decode_bundle(bundle))
}

is_v2 <- function(x) {
  inherits(x, "dm")
}

validate_v2 <- function(x, call = rlang::caller_env()) {
  tables <- check_v2_tables(x, call = call)
  check_v2_keys(x, tables, call = call)
  rust_value(
    ffi_profile_validate_v2(bundle_from_tables(tables)),
    "Invalid v2 profile.",
    call = call
  )
  invisible(x)
}

# The tables of `x` after checking what R sees: a dm, the required tables in order,
# the required columns in order, the column types.
check_v2_tables <- function(x, call = rlang::caller_env()) {
  if (!inherits(x, "dm")) {
    abort_profile(
      "invalid", "A v2 profile must be a {.cls dm} object, not {.obj_type_friendly {x}}.",
      x = x, call = call
    )
  }
  check_v2_table_list(v2_tables(x), call = call)
}

# The checks of check_v2_tables() on the tables of a dm as a named list of data
# frames (for a database-backed profile: its small tables and empty versions of
# its per-sample tables, see R/db.R).
check_v2_table_list <- function(tables, call = rlang::caller_env()) {
  schema <- v2_schema()
  invalid <- function(message, ...) {
    abort_profile("invalid", message, call = call, ...)
  }
  required <- schema$required_tables
  have <- names(tables)
  if (!identical(have[seq_along(required)], required)) {
    invalid(c(
      "A v2 profile must start with the tables {.field {required}}, in this order.",
      i = "It has {.field {have}}."
    ), required = required, have = have)
  }
  for (t in intersect(have, schema$tables)) {
    df <- tables[[t]]
    spec <- schema$columns[[t]]
    n_req <- spec$required
    req_cols <- spec$name[seq_len(n_req)]
    if (!identical(names(df)[seq_len(n_req)], req_cols)) {
      invalid(c(
        "Table {.field {t}} must start with the columns {.field {req_cols}}, in this order.",
        i = "It has {.field {names(df)}}."
      ), t = t, req_cols = req_cols, df = df)
    }
    tables[[t]] <- check_v2_column_types(t, df, spec, invalid)
  }
  tables
}

# The columns of table `t` (`df`) against their types in the format (`spec`);
# `invalid` raises the error. Returns `df`, where a logical column collected
# from a database without a boolean type (SQLite: 0, 1 and NULL) is made
# logical.
check_v2_column_types <- function(t, df, spec, invalid) {
  for (j in seq_along(spec$name)) {
    col <- spec$name[[j]]
    if (!col %in% names(df)) next
    want <- spec$col_type[[j]]
    v <- df[[col]]
    if (want == "logical" && is_logical_as_number(v)) {
      v <- as.logical(v)
      df[[col]] <- v
    }
    ok <- switch(want,
      integer = is.integer(v) && !is.factor(v),
      double = is.double(v),
      character = is.character(v),
      logical = is.logical(v)
    )
    if (!ok) {
      invalid(
        "Table {.field {t}}, column {.field {col}} must be {want}, not {.obj_type_friendly {v}}.",
        t = t, col = col, want = want, v = v
      )
    }
  }
  df
}

is_logical_as_number <- function(v) {
  (is.integer(v) || is.double(v)) && !is.factor(v) && all(v %in% c(0, 1, NA))
}

# The dm must carry the keys of the format (dm verbs keep them; dm() alone does not).
check_v2_keys <- function(x, tables, call) {
  check_v2_primary_keys(x, tables, call)
  check_v2_foreign_keys(x, tables, call)
}

check_v2_primary_keys <- function(x, tables, call) {
  schema <- v2_schema()
  pks <- dm::dm_get_all_pks(x)
  pk <- schema$primary_keys
  for (i in seq_along(pk$table)) {
    t <- pk$table[[i]]
    if (!t %in% names(tables)) next
    row <- pks[pks$table == t, ]
    if (nrow(row) != 1 || !identical(unlist(row$pk_col), pk$column[[i]])) {
      col <- pk$column[[i]]
      abort_profile("invalid",
        paste(
          "Table {.field {t}} must have the primary key {.field {col}} set (see",
          "{.fn new_profile_v2})."
        ),
        call = call, t = t, col = col
      )
    }
  }
}

check_v2_foreign_keys <- function(x, tables, call) {
  schema <- v2_schema()
  fks <- dm::dm_get_all_fks(x)
  fk <- schema$foreign_keys
  for (i in dm_recorded_fks()) {
    child <- fk$table[[i]]
    parent <- fk$ref_table[[i]]
    col <- fk$column[[i]]
    if (!all(c(child, parent) %in% names(tables))) next
    hit <- fks$child_table == child & fks$parent_table == parent &
      vapply(fks$child_fk_cols, function(k) identical(unlist(k), col), logical(1))
    if (!any(hit)) {
      abort_profile("invalid",
        paste(
          "Table {.field {child}} must have the foreign key {.field {col}} to",
          "{.field {parent_table}} set (see {.fn new_profile_v2})."
        ),
        call = call, child = child, col = col, parent_table = parent
      )
    }
  }
}

# The extension table `unfiltered_totals` ("Percentages after a verb" in
# ?profile_summary): per source, sample type and unit, the total value of
# the profile before the first verb that left samples or values out, of which
# summaries give percentages as go tool pprof does after -focus and the
# other filters. The table of `tables`, else their own totals (of the samples
# in `samples`).
unfiltered_totals_of <- function(tables) {
  if (!is.null(tables[["unfiltered_totals"]])) {
    return(tables$unfiltered_totals)
  }
  values <- tables$sample_values
  samples <- tables$samples
  row <- match(values$sample_id, samples$sample_id)
  kept <- which(!is.na(row))
  groups <- data.frame(
    source_id = samples$source_id[row[kept]],
    type = as.character(values$type[kept]),
    unit = as.character(values$unit[kept])
  )
  id <- vctrs::vec_group_id(groups)
  key <- groups[!duplicated(id), , drop = FALSE]
  total <- as.vector(rowsum(as.double(values$value[kept]), id, reorder = TRUE))
  tibble::tibble(source_id = key$source_id, type = key$type, unit = key$unit, value = total)
}

# The tables `after` of a verb applied to `before`, with the totals of the
# whole profile kept: those `before` kept, else, where the verb left samples
# or values out, the totals of `before`.
with_unfiltered_totals <- function(before, after) {
  if (!is.null(before[["unfiltered_totals"]])) {
    after$unfiltered_totals <- before$unfiltered_totals
  } else if (vctrs::vec_size(after$samples) != vctrs::vec_size(before$samples) ||
    vctrs::vec_size(after$sample_values) != vctrs::vec_size(before$sample_values)) {
    after$unfiltered_totals <- unfiltered_totals_of(before)
  }
  after
}

# The per-sample tables: whole samples, their values, stacks and labels. They
# grow with the samples: what a verb changes (apply_verb()), what is never
# collected whole from a database (R/db.R).
per_sample_tables <- c("samples", "sample_values", "sample_locations", "sample_labels")
