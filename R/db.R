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

# A table of a database has no row order, but the rows of a profile have one:
# samples and ids in the order of their ids, the stack of a sample by depth,
# the sample types of a source in the order it declares them (pprof's default
# sample type is the last one), comments in the order they were written.
# Where ids do not tell, profile_db_append() numbers the rows in the column
# `position` (see db_ordered_tables).
db_ordered_tables <- c("sample_types", "source_comments")

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
# SQL

# A table of a database-backed profile as SQL: its connection, the query that
# gives its rows (a subquery of the queries below) and its columns. The
# queries are written here rather than with dbplyr's verbs, whose rendering
# costs more than most of these queries take to run.
db_table <- function(tbl) {
  structure(
    list(
      con = dbplyr::remote_con(tbl),
      sql = as.character(dbplyr::sql_render(tbl)),
      columns = colnames(tbl)
    ),
    class = "profile_db_table"
  )
}

is_db_table <- function(x) {
  inherits(x, "profile_db_table")
}

# The rows of an SQL query, whose `{name}` fields are filled with the values
# in `...`: a db_table() as its query in parentheses, a string as it is.
# Identifiers are written in double quotes, which SQLite, DuckDB and
# PostgreSQL all read as identifiers.
db_query <- function(con, template, ...) {
  DBI::dbGetQuery(con, sql_fill(template, ...))
}

sql_fill <- function(template, ...) {
  values <- lapply(list(...), function(v) if (is_db_table(v)) paste0("(", v$sql, ")") else v)
  field <- gregexpr("\\{[a-z_]+\\}", template)
  names <- regmatches(template, field)[[1L]]
  text <- regmatches(template, field, invert = TRUE)[[1L]]
  filled <- vapply(substr(names, 2L, nchar(names) - 1L), function(n) values[[n]], character(1))
  paste(c(rbind(text, c(filled, ""))), collapse = "")
}

sql_name <- function(con, x) {
  as.character(DBI::dbQuoteIdentifier(con, x))
}

sql_string <- function(con, x) {
  as.character(DBI::dbQuoteString(con, x))
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

# Columns collected from a database in the types of the format where the
# database holds them in another type that keeps every value: SQLite has no
# boolean type (0/1), and drivers return 64-bit integers (counts, BIGINT ids)
# as `integer64` or double.
as_schema_types <- function(df, table) {
  spec <- v2_schema()$columns[[table]]
  for (j in seq_along(spec$name)) {
    col <- spec$name[[j]]
    if (!is.null(df[[col]])) {
      df[[col]] <- as_column_type(df[[col]], spec$col_type[[j]])
    }
  }
  df
}

as_column_type <- function(v, type) {
  if (inherits(v, "integer64")) {
    v <- as.double(v)
  }
  whole <- function(v) all(is.na(v) | (v == trunc(v) & abs(v) <= .Machine$integer.max))
  if (is_untyped_column(v, type)) {
    return(as.vector(v, type))
  }
  switch(type,
    logical = if (is.numeric(v) && all(v %in% c(0, 1, NA))) as.logical(v) else v,
    integer = if (is.double(v) && whole(v)) as.integer(v) else v,
    double = if (is.integer(v)) as.double(v) else v,
    v
  )
}

# A column of no rows or only NULLs, whose type the driver cannot tell (it
# comes back logical).
is_untyped_column <- function(v, type) {
  is.logical(v) && type != "logical" && all(is.na(v))
}

# A count or sum collected from a database as a double (0 for SQL's NULL sum
# of no rows).
db_number <- function(v) {
  v <- as.double(v)
  if (length(v) == 0L || is.na(v[[1L]])) 0 else v[[1L]]
}

# ---------------------------------------------------------------------------
# Stacks and label sets as text, so that the database can group samples by them

# A query of `sample_id` and `stack`: the frames of each sample as
# "depth:location_id" entries joined by commas, innermost first. Each entry
# names its depth, so the text reads back right in any order; ordered entries
# only make equal stacks group together (SQLite before 3.44 has no ORDER BY in
# aggregates: its rows are fed in the order of an ordered subquery).
db_stack_signatures <- function(stack) {
  db_concatenated(
    stack, "stack", "CAST(\"depth\" AS TEXT) || ':' || CAST(\"location_id\" AS TEXT)", "\"depth\""
  )
}

# The rows of sample_locations of the stacks written by db_stack_signatures():
# sample i has the frames of stacks[i] (NA: none).
stack_rows_of_signatures <- function(stacks) {
  entries <- strsplit(ifelse(is.na(stacks), "", stacks), ",", fixed = TRUE)
  n <- lengths(entries)
  entry <- unlist(entries, use.names = FALSE)
  colon <- regexpr(":", entry, fixed = TRUE)
  rows <- tibble::new_tibble(list(
    sample_id = rep(seq_along(stacks), n),
    depth = as.integer(substr(entry, 1L, colon - 1L)),
    location_id = as.integer(substring(entry, colon + 1L))
  ), nrow = length(entry))
  rows[order(rows$sample_id, rows$depth), , drop = FALSE]
}

# A query of `sample_id` and `name`: `entry` (an SQL expression over the
# columns of `table`, a db_table() or a query) of each sample's rows as text
# joined by commas, in the order of `order_by`. SQLite has group_concat(); the
# others string_agg() with ORDER BY (PostgreSQL, DuckDB).
db_concatenated <- function(table, name, entry, order_by) {
  template <- if (inherits(table$con, "SQLiteConnection")) {
    paste(
      "SELECT \"sample_id\", group_concat({entry}, ',') AS {name} FROM",
      "(SELECT * FROM {table} AS \"r\" ORDER BY \"sample_id\", {order_by}) GROUP BY \"sample_id\""
    )
  } else {
    paste(
      "SELECT \"sample_id\", string_agg({entry}, ',' ORDER BY {order_by}) AS {name}",
      "FROM {table} AS \"r\" GROUP BY \"sample_id\""
    )
  }
  sql_fill(
    template,
    entry = entry, name = sql_name(table$con, name), table = table, order_by = order_by
  )
}

# The distinct labels of sample_labels numbered (`dictionary`, collected), and
# a query of each sample's set of label numbers as text (`sets`: `sample_id`
# and `labels`).
db_label_sets <- function(labels) {
  con <- labels$con
  columns <- paste(
    sql_name(con, intersect(v2_schema()$columns$sample_labels$name[-1L], labels$columns)),
    collapse = ", "
  )
  numbered <- list(con = con, sql = sql_fill(
    paste(
      "SELECT \"sample_id\", {columns}, DENSE_RANK() OVER (ORDER BY {columns}) AS \"label_id\"",
      "FROM {labels} AS \"l\""
    ),
    columns = columns, labels = labels
  ))
  class(numbered) <- "profile_db_table"
  dictionary <- db_query(con, "SELECT DISTINCT \"label_id\", {columns} FROM {numbered} AS \"n\"",
    columns = columns, numbered = numbered
  )
  dictionary$label_id <- as_column_type(dictionary$label_id, "integer")
  dictionary <- dictionary[order(dictionary$label_id), , drop = FALSE]
  list(
    dictionary = as_schema_types(dictionary, "sample_labels"),
    sets = db_concatenated(numbered, "labels", "CAST(\"label_id\" AS TEXT)", "\"label_id\"")
  )
}

# ---------------------------------------------------------------------------
# Temporary tables

# A temporary table of `location_id` (its primary key) and `key`; returns its
# name.
db_temporary_table <- function(con, location_id, key) {
  db_env$temporary <- db_env$temporary + 1L
  name <- sprintf("profile_keys_%d_%d", Sys.getpid(), db_env$temporary)
  DBI::dbExecute(con, sprintf(
    "CREATE TEMPORARY TABLE %s (\"location_id\" INTEGER PRIMARY KEY, \"key\" INTEGER)",
    sql_name(con, name)
  ))
  db_insert_rows(
    con, name, data.frame(location_id = as.integer(location_id), key = as.integer(key))
  )
  name
}

db_drop_table <- function(con, name) {
  DBI::dbExecute(con, paste("DROP TABLE", sql_name(con, name)))
}

db_env <- new.env(parent = emptyenv())
db_env$temporary <- 0L
