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
# This file holds what they share: the detection, the row order of collected
# tables, the SQL helpers, the stacks and label sets as text, and temporary
# tables. Appending is in R/db-append.R.
#
# The per-sample tables grow with the profile and are never collected whole;
# the other tables (meta, sources, locations, functions and the extension
# tables) grow with the code profiled, not with the samples, and are collected
# when needed.

# Whether `x` is a profile (a dm) whose tables are in a database.
is_db_profile <- function(x) {
  if (!inherits(x, "dm")) {
    return(FALSE)
  }
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  length(tables) > 0L && inherits(tables[[1L]], "tbl_lazy")
}

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

# ---------------------------------------------------------------------------
# Reading the tables

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
