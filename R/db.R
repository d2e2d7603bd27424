# Profiles whose tables are in a database (a `dm` made by dm::copy_dm_to(),
# dm::dm_from_con(), profile_db() or profile_db_append()). This file is the one
# place that tells such a profile from one in memory (is_db_profile()); the
# functions that look at profiles branch on it once:
#
# - validate_profile(): validate_db() (R/db-validate.R) checks the small tables
#   in Rust and the per-sample tables in SQL;
# - profile_summary(): frame_key_totals() (R/stacks.R) sums values per frame key
#   in SQL (db_key_totals(), R/db-summary.R);
# - flame graphs and folded stacks: stacks_in_memory() (R/db-summary.R)
#   collects the distinct stacks of one sample type with their summed values;
# - write_pprof(): profile_for_writing() (R/db-write.R) collects the profile
#   aggregated by source, stack and labels; write_rprof(): write_by_sources()
#   writes a file of one segment per source a few sources at a time;
# - verbs and combine_profiles(): local_profile() collects the whole profile.
#
# The per-sample tables grow with the profile and are never collected whole;
# the other tables (meta, sources, locations, functions and the extension
# tables) grow with the code profiled, not with the samples, and are collected
# when needed.
#
# The database code is in rooms, each using only those listed before it
# (dev/call-graph.R checks that no two files use each other):
#
# - R/db-sql.R, the SQL layer: dialects, the catalog, quoting and queries,
#   collected column types, transactions and locks, inserts, temporary
#   tables, the rows of a sample as text;
# - R/db-layout.R, the layout: the tables the package makes, the views,
#   the layout's version, and reading the layout's own tables;
# - this file: detection (is_db_profile(), db_stack_source()), the entry
#   point profile_db() and the checks of a connection, collecting tables;
# - the writers, R/db-append.R, R/db-delete.R and R/db-upgrade.R, and the
#   readers, R/db-summary.R, R/db-validate.R and R/db-write.R, which use the
#   rooms before them and none of each other, but for R/db-write.R, which
#   validates with validate_db() before it collects (as the writers validate
#   a profile in memory).

# ---------------------------------------------------------------------------
# Detection

# Whether `x` is a profile (a dm) whose tables are in a database.
is_db_profile <- function(x) {
  if (!inherits(x, "dm")) {
    return(FALSE)
  }
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  length(tables) > 0L && inherits(tables[[1L]], "tbl_lazy")
}

# The layout's tables under a database-backed profile (R/db-layout.R), when
# its per-sample tables are the layout's views, whole or narrowed to the
# samples of its `samples` table (as dm::dm_filter() on `sources` or
# `samples` narrows them): `con` and `where`, a condition on the rows of
# profile_samples (alias "p"; TRUE for all). NULL otherwise: a profile whose
# stacks or values were filtered row by row is read through the views.
db_stack_source <- function(x) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  if (!all(db_view_tables %in% names(tables))) {
    return(NULL)
  }
  con <- dbplyr::remote_con(tables$samples)
  if (!identical(db_layout(con), db_layout_version)) {
    return(NULL)
  }
  render <- function(tbl) as.character(dbplyr::sql_render(tbl))
  plain <- function(t) dplyr::tbl(con, t, vars = colnames(tables[[t]]))
  whole <- function(t) render(plain(t))
  if (!db_views_follow_samples(tables, plain, render)) {
    return(NULL)
  }
  samples <- render(tables$samples)
  by_sources <- dplyr::semi_join(plain("samples"), tables$sources, by = "source_id")
  by_sources <- render(by_sources)
  all_samples <- identical(samples, whole("samples"))
  where <- if (all_samples) {
    "1 = 1"
  } else {
    sprintf('"p"."sample_id" IN (SELECT "sample_id" FROM (%s) AS "s")', samples)
  }
  # whole sources: their sums per stack serve
  sources <- if (all_samples) {
    "1 = 1"
  } else if (identical(samples, by_sources)) {
    sprintf(
      '"p"."source_id" IN (SELECT "source_id" FROM (%s) AS "s")',
      render(tables$sources)
    )
  }
  structure(list(con = con, where = where, sources = sources), class = "profile_db_stacks")
}

# Whether the views `sample_values` and `sample_locations` of a profile's
# `tables` are whole, or narrowed to the samples of its `samples` table.
db_views_follow_samples <- function(tables, plain, render) {
  for (t in c("sample_values", "sample_locations")) {
    sql <- render(tables[[t]])
    by_samples <- render(dplyr::semi_join(plain(t), tables$samples, by = "sample_id"))
    if (!identical(sql, render(plain(t))) && !identical(sql, by_samples)) {
      return(FALSE)
    }
  }
  TRUE
}

is_db_stacks <- function(x) {
  inherits(x, "profile_db_stacks")
}

# ---------------------------------------------------------------------------
# The profile of a database, and the checks of its connection

#' @rdname profile_db_append
#' @export
profile_db <- function(con) {
  with_profile_errors("io", "Can't read the profile tables of the database.", {
    check_db_connection(con)
    schema <- v2_schema()
    columns <- db_all_columns(con)
    present <- schema$tables[schema$tables %in% names(columns)]
    missing <- setdiff(schema$required_tables, present)
    if (length(missing)) {
      abort_profile("invalid",
        paste(
          "The database has no profile: the tables {.field {missing}} are missing (see",
          "{.fn profile_db_append})."
        ),
        missing = missing
      )
    }
    # The tables of OpenTelemetry profiles, as in memory: only in a profile
    # that came from one (each has a resource), not in the others'.
    if ("resources" %in% present && db_table_is_empty(con, "resources")) {
      present <- setdiff(present, schema$otlp_tables)
    }
    # The tables of recordings of parallel code, likewise: only where a
    # profile has rows in them.
    for (table in intersect(present, schema$recording_tables)) {
      if (db_table_is_empty(con, table)) present <- setdiff(present, table)
    }
    # the columns given, so that dbplyr does not ask for each table's
    tables <- lapply(present, function(t) {
      profile_db_tbl(dplyr::tbl(con, t, vars = columns[[t]]), t)
    })
    names(tables) <- present
    as_profile_v2(keyed_dm(tables))
  })
}

check_db_connection <- function(con, call = rlang::caller_env()) {
  rlang::check_installed(c("DBI", "dbplyr"), "to keep profiles in a database.", call = call)
  if (!inherits(con, "DBIConnection")) {
    abort_argument(
      "{.arg con} must be a DBI connection, not {.obj_type_friendly {con}}.",
      con = con, call = call
    )
  }
  if (!db_is_valid(con)) {
    abort_argument("{.arg con} is a connection that is closed.", call = call)
  }
}

# The layout of the database, when appending to it can go ahead: none yet,
# or the current one. A database of an earlier layout is left as it is.
check_db_layout <- function(con, call = rlang::caller_env()) {
  layout <- db_layout(con)
  if (layout == "2.1") {
    abort_profile("unsupported", c(
      "The database has the layout of profile 2.1 (each sample with its whole stack).",
      i = "Run {.code profile_db_upgrade(con)} once to upgrade it in place; nothing was changed."
    ), call = call)
  }
  if (!layout %in% c("none", db_layout_version)) {
    abort_profile("unsupported",
      "The database's profile tables have a layout this version does not know ({.val {layout}}).",
      layout = layout, call = call
    )
  }
  layout
}

# ---------------------------------------------------------------------------
# Collecting the tables

# The profile in memory: the whole of it (what verbs and combining need).
local_profile <- function(x) {
  if (!is_db_profile(x)) {
    return(x)
  }
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  local <- lapply(names(tables), function(t) {
    db_in_profile_order(as_schema_types(dplyr::collect(tables[[t]]), t), t)
  })
  names(local) <- names(tables)
  dm_from_v2_tables(per_sample_rows_in_order(local))
}

# A table of a database-backed profile: a lazy table that knows which table
# of the format it is, so that dplyr::collect() of it (and of the profile:
# dm collects each table) gives the schema's column types. A driver cannot
# tell the type of a column of no rows from an SQLite view (nor of only
# NULLs), and gives 64-bit integers as integer64 and SQLite's booleans as
# 0/1. dplyr verbs on the table keep the class.
profile_db_tbl <- function(tbl, table) {
  attr(tbl, "profile_table") <- table
  class(tbl) <- c("profile_db_tbl", setdiff(class(tbl), "profile_db_tbl"))
  tbl
}

#' @rawNamespace S3method(dplyr::collect, profile_db_tbl)
# (dplyr's generic, registered above: S3 names its method generic.class)
collect.profile_db_tbl <- function(x, ...) { # nolint: object_name_linter.
  out <- NextMethod()
  table <- attr(x, "profile_table")
  if (rlang::is_string(table)) as_schema_types(out, table) else out
}

# The rows of a small table collected from a database in the order of the
# profile: by `position` (which is dropped) or by the integer id.
db_in_profile_order <- function(df, table) {
  pk <- v2_schema()$primary_keys
  id <- if (any(pk$table == table)) df[[pk$column[pk$table == table]]]
  order_by <- if (table %in% db_ordered_tables) df[["position"]] else if (is.numeric(id)) id
  if (!is.null(order_by)) {
    df <- df[order(order_by, na.last = FALSE, method = "radix"), , drop = FALSE]
  }
  if (table %in% db_ordered_tables) {
    df[["position"]] <- NULL
  }
  df
}

# The per-sample tables of collected profile tables in the order of the
# profile: by sample, and within a sample by depth or by the order of the
# sample types its source declares.
per_sample_rows_in_order <- function(local) {
  by <- function(df, ...) df[order(..., method = "radix"), , drop = FALSE]
  local$samples <- by(local$samples, local$samples$sample_id)
  local$sample_locations <- by(
    local$sample_locations, local$sample_locations$sample_id, local$sample_locations$depth
  )
  if (!is.null(local$sample_labels)) {
    local$sample_labels <- by(local$sample_labels, local$sample_labels$sample_id)
  }
  values <- local$sample_values
  declared <- local[["sample_types"]]
  position <- if (is.null(declared)) {
    rep(NA_integer_, nrow(values))
  } else {
    source_id <- local$samples$source_id[match(values$sample_id, local$samples$sample_id)]
    vctrs::vec_match(
      data.frame(source_id = source_id, type = values$type),
      data.frame(source_id = declared$source_id, type = declared$type)
    )
  }
  local$sample_values <- by(values, values$sample_id, position)
  local
}

# The tables of a database-backed profile, after the checks check_v2_tables()
# makes: `local` has the small tables collected and the per-sample tables with
# no rows (their columns and types), `db` every table as a db_table().
db_profile_tables <- function(x, call = rlang::caller_env()) {
  db <- lapply(dm::dm_get_tables(x, keyed = FALSE), db_table)
  local <- lapply(names(db), function(t) {
    limit <- if (t %in% per_sample_tables) " LIMIT 0" else ""
    rows <- db_query(db[[t]]$con, paste0("SELECT * FROM {table} AS \"t\"", limit), table = db[[t]])
    db_in_profile_order(as_schema_types(tibble::as_tibble(rows), t), t)
  })
  names(local) <- names(db)
  list(local = check_v2_table_list(local, call = call), db = db)
}
