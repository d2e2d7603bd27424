# Profiles whose tables are in a database (a `dm` made by dm::copy_dm_to(),
# dm::dm_from_con(), profile_db() or profile_db_append()). This file is the one
# place that tells such a profile from one in memory (is_db_profile()); the
# functions that look at profiles branch on it once:
#
# - validate_profile(): validate_db() checks the small tables in Rust and the
#   per-sample tables in SQL;
# - profile_summary(): frame_key_totals() (R/stacks.R) sums values per frame key
#   in SQL (db_key_totals());
# - flame graphs and folded stacks: stacks_in_memory() collects the distinct
#   stacks of one sample type with their summed values;
# - write_pprof(): profile_for_writing() collects the profile aggregated by
#   source, stack and labels; write_rprof(): write_by_sources() writes a file
#   of one segment per source a few sources at a time;
# - verbs and combine_profiles(): local_profile() collects the whole profile.
#
# The per-sample tables grow with the profile and are never collected whole;
# the other tables (meta, sources, locations, functions and the extension
# tables) grow with the code profiled, not with the samples, and are collected
# when needed.

per_sample_tables <- c("samples", "sample_values", "sample_locations", "sample_labels")

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
  local$sample_locations <- by(local$sample_locations, local$sample_locations$sample_id, local$sample_locations$depth)
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
    list(con = dbplyr::remote_con(tbl), sql = as.character(dbplyr::sql_render(tbl)), columns = colnames(tbl)),
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
  switch(type,
    logical = if (is.numeric(v) && all(v %in% c(0, 1, NA))) as.logical(v) else v,
    integer = if (is.double(v) && whole(v)) as.integer(v) else v,
    double = if (is.integer(v)) as.double(v) else v,
    v
  )
}

# A count or sum collected from a database as a double (0 for SQL's NULL sum
# of no rows).
db_number <- function(v) {
  v <- as.double(v)
  if (length(v) == 0L || is.na(v[[1L]])) 0 else v[[1L]]
}

# ---------------------------------------------------------------------------
# Validation

validate_db <- function(x, call = rlang::caller_env()) {
  tables <- db_profile_tables(x, call = call)
  check_v2_keys(x, tables$local, call = call)
  # Every rule of the small tables, in Rust as for a profile in memory (the
  # per-sample tables have no rows here, so no rule involves them).
  rust_value(ffi_profile_validate_v2(bundle_from_tables(tables$local)), "Invalid v2 profile.", call = call)
  db_check_per_sample_rows(tables$db, call = call)
  invisible(x)
}

# The rules of the format for the rows of the per-sample tables, as SQL, in
# the order the Rust validator checks them (src/rust/core/src/validate.rs):
# NA, positive and non-negative values, primary keys, foreign keys, unique
# (sample, type) values, stack depths 1..n. Tables have no row order in a
# database, so an offending row is named by its sample_id, not its position.
db_check_per_sample_rows <- function(db, call) {
  fail <- function(table, column, sample_id, message) {
    abort_profile("invalid", "Invalid v2 profile.", call = call, detail = sprintf(
      "table `%s`, column `%s`, a row with sample_id %s: %s",
      table, column, format_id(sample_id), message
    ))
  }
  present <- intersect(names(db), per_sample_tables)
  db_check_column_rules(db, present, fail)
  db_check_keys(db, present, fail)
  if ("sample_values" %in% present) {
    db_check_unique_types(db$sample_values, fail)
  }
  if ("sample_locations" %in% present) {
    db_check_depths(db$sample_locations, fail)
  }
}

format_id <- function(id) {
  if (length(id) == 0L || is.na(id)) "NA" else format(as.double(id), scientific = FALSE)
}

# NA, positive ids, non-negative lines: one pass over each table tells which
# rules some row breaks; the first of them in the validator's order is
# reported with a row that breaks it.
db_check_column_rules <- function(db, present, fail) {
  schema <- v2_schema()
  rules <- list(
    not_na = list(breaks = "{column} IS NULL", message = function(value) "must not be NA"),
    positive = list(
      breaks = "{column} <= 0",
      message = function(value) paste("must be a positive id, found", format_id(value))
    ),
    non_negative = list(
      breaks = "{column} < 0",
      message = function(value) paste("must be zero (unknown) or positive, found", format_id(value))
    )
  )
  checks <- do.call(rbind, lapply(names(rules), function(rule) {
    cols <- schema[[rule]]
    data.frame(rule = rep(rule, length(cols$table)), table = cols$table, column = cols$column)
  }))
  checks <- checks[checks$table %in% present, , drop = FALSE]
  checks <- checks[mapply(function(t, col) col %in% db[[t]]$columns, checks$table, checks$column), , drop = FALSE]
  breaks <- function(i) {
    con <- db[[checks$table[[i]]]]$con
    sql_fill(rules[[checks$rule[[i]]]]$breaks, column = sql_name(con, checks$column[[i]]))
  }
  broken <- logical(nrow(checks))
  for (t in unique(checks$table)) {
    mine <- which(checks$table == t)
    flags <- vapply(seq_along(mine), function(k) {
      sprintf("MAX(CASE WHEN %s THEN 1 ELSE 0 END) AS \"rule_%d\"", breaks(mine[[k]]), k)
    }, character(1))
    found <- db_query(db[[t]]$con, "SELECT {flags} FROM {table} AS \"t\"",
      flags = paste(flags, collapse = ", "), table = db[[t]]
    )
    broken[mine] <- vapply(seq_along(mine), function(k) db_number(found[[k]]) > 0, logical(1))
  }
  if (!any(broken)) {
    return(invisible())
  }
  first <- which(broken)[[1L]]
  t <- checks$table[[first]]
  col <- checks$column[[first]]
  row <- db_query(db[[t]]$con, "SELECT * FROM {table} AS \"t\" WHERE {breaks} LIMIT 1",
    table = db[[t]], breaks = breaks(first)
  )
  fail(t, col, row$sample_id, rules[[checks$rule[[first]]]]$message(row[[col]]))
}

# The primary and foreign keys of the per-sample tables (a foreign key into a
# table the profile does not have is not checked, as in memory).
db_check_keys <- function(db, present, fail) {
  schema <- v2_schema()
  pk <- schema$primary_keys
  for (i in which(pk$table %in% present)) {
    table <- db[[pk$table[[i]]]]
    row <- db_query(table$con,
      "SELECT {column} AS \"id\" FROM {table} AS \"t\" GROUP BY {column} HAVING COUNT(*) > 1 LIMIT 1",
      table = table, column = sql_name(table$con, pk$column[[i]])
    )
    if (nrow(row)) {
      fail(pk$table[[i]], pk$column[[i]], row$id, sprintf("is the primary key but %s occurs more than once", format_id(row$id)))
    }
  }
  fk <- schema$foreign_keys
  for (i in which(fk$table %in% present & fk$ref_table %in% names(db))) {
    child <- db[[fk$table[[i]]]]
    row <- db_query(child$con, paste(
      "SELECT \"c\".\"sample_id\" AS \"sample_id\", \"c\".{column} AS \"id\" FROM {child} AS \"c\"",
      "WHERE \"c\".{column} IS NOT NULL",
      "AND NOT EXISTS (SELECT 1 FROM {parent} AS \"p\" WHERE \"p\".{ref_column} = \"c\".{column}) LIMIT 1"
    ),
    child = child, parent = db[[fk$ref_table[[i]]]],
    column = sql_name(child$con, fk$column[[i]]), ref_column = sql_name(child$con, fk$ref_column[[i]])
    )
    if (nrow(row)) {
      fail(fk$table[[i]], fk$column[[i]], row$sample_id, sprintf(
        "value %s has no match in `%s`.`%s`", format_id(row$id), fk$ref_table[[i]], fk$ref_column[[i]]
      ))
    }
  }
}

db_check_unique_types <- function(values, fail) {
  row <- db_query(values$con, paste(
    "SELECT \"sample_id\", \"type\" FROM {values} AS \"v\"",
    "GROUP BY \"sample_id\", \"type\" HAVING COUNT(*) > 1 LIMIT 1"
  ), values = values)
  if (nrow(row)) {
    fail("sample_values", "type", row$sample_id, sprintf(
      "(`sample_id`, `type`) must be unique but (%s, \"%s\") occurs more than once",
      format_id(row$sample_id), row$type
    ))
  }
}

# Depths run 1..n in each sample: all of them within 1..n and n distinct ones.
db_check_depths <- function(stack, fail) {
  row <- db_query(stack$con, paste(
    "SELECT \"sample_id\", COUNT(*) AS \"n_rows\", MIN(\"depth\") AS \"lowest\", MAX(\"depth\") AS \"highest\"",
    "FROM {stack} AS \"s\" GROUP BY \"sample_id\"",
    "HAVING MIN(\"depth\") < 1 OR MAX(\"depth\") > COUNT(*) OR COUNT(DISTINCT \"depth\") < COUNT(*) LIMIT 1"
  ), stack = stack)
  if (!nrow(row)) {
    return(invisible())
  }
  n <- db_number(row$n_rows)
  out_of_range <- c(row$lowest, row$highest)[c(row$lowest < 1, row$highest > n)]
  if (length(out_of_range)) {
    fail("sample_locations", "depth", row$sample_id, sprintf(
      "sample %s has %s frames, so depths must run 1..%s without gaps, found %s",
      format_id(row$sample_id), format_id(n), format_id(n), format_id(out_of_range[[1L]])
    ))
  }
  repeated <- db_query(stack$con, paste(
    "SELECT \"depth\" FROM {stack} AS \"s\" WHERE \"sample_id\" = {sample}",
    "GROUP BY \"depth\" HAVING COUNT(*) > 1 LIMIT 1"
  ), stack = stack, sample = format_id(row$sample_id))
  fail("sample_locations", "depth", row$sample_id, sprintf(
    "(`sample_id`, `depth`) must be unique but (%s, %s) occurs more than once",
    format_id(row$sample_id), format_id(repeated$depth)
  ))
}

# ---------------------------------------------------------------------------
# Summaries: the parts of R/stacks.R, with the per-sample tables left in the
# database (`stack` and `values` are db_table()s).

db_profile_parts_tables <- function(x, call) {
  tables <- db_profile_tables(x, call = call)
  local <- tables$local
  local$sample_locations <- tables$db$sample_locations
  local$sample_values <- tables$db$sample_values
  local
}

# The distinct (type, unit) pairs of sample_values, in order of the first
# sample that has them (then in byte order: a table in a database has no row
# order to tell apart the types of one sample).
db_value_types <- function(values) {
  pairs <- db_query(values$con, paste(
    "SELECT \"type\", \"unit\", MIN(\"sample_id\") AS \"first_sample\"",
    "FROM {values} AS \"v\" GROUP BY \"type\", \"unit\""
  ), values = values)
  pairs <- pairs[order(pairs$first_sample, pairs$type, pairs$unit, method = "radix"), , drop = FALSE]
  tibble::new_tibble(list(type = pairs$type, unit = pairs$unit), nrow = nrow(pairs))
}

# The values of sample type `type`: the query of their `sample_id` and
# `value` (`chosen`, a subquery) and their sum, after the checks the Rust core
# makes in memory: no NA value, one value of the type per sample.
db_values_of_type <- function(values, type, message, call) {
  con <- values$con
  chosen <- sql_fill("(SELECT \"sample_id\", \"value\" FROM {values} AS \"v\" WHERE \"type\" = {type})",
    values = values, type = sql_string(con, type)
  )
  counts <- db_query(con, paste(
    "SELECT SUM(\"value\") AS \"grand_total\", COUNT(*) AS \"n_rows\", COUNT(\"value\") AS \"n_values\",",
    "COUNT(DISTINCT \"sample_id\") AS \"n_samples\" FROM {chosen} AS \"c\""
  ), chosen = chosen)
  fail <- function(column, sample_id, what) {
    abort_profile("invalid", message, call = call, detail = sprintf(
      "table `sample_values`, column `%s`, a row with sample_id %s: %s", column, format_id(sample_id), what
    ))
  }
  if (db_number(counts$n_values) < db_number(counts$n_rows)) {
    row <- db_query(con, "SELECT \"sample_id\" FROM {chosen} AS \"c\" WHERE \"value\" IS NULL LIMIT 1", chosen = chosen)
    fail("value", row$sample_id, "is NA")
  }
  if (db_number(counts$n_samples) < db_number(counts$n_rows)) {
    row <- db_query(con,
      "SELECT \"sample_id\" FROM {chosen} AS \"c\" GROUP BY \"sample_id\" HAVING COUNT(*) > 1 LIMIT 1",
      chosen = chosen
    )
    fail("sample_id", row$sample_id, sprintf("sample %s has two values of the chosen type", format_id(row$sample_id)))
  }
  list(chosen = chosen, grand_total = db_number(counts$grand_total))
}

# What ffi_profile_key_totals() returns, computed in the database: self and
# total value per frame key (recursion counted once per sample) and the grand
# total. The key of each location travels to the database as a temporary table.
db_key_totals <- function(parts, type, location_key, n_keys, call) {
  values <- db_values_of_type(parts$values, type, "Can't summarise the profile.", call)
  con <- parts$values$con
  # the key of the last row of a location id, as in memory
  counted <- location_key > 0L & !duplicated(parts$locations$location_id, fromLast = TRUE)
  keys <- db_temporary_table(con, parts$locations$location_id[counted], location_key[counted])
  on.exit(db_drop_table(con, keys))
  # The innermost counted frame: depth 1 when every frame counts.
  innermost <- if (all(location_key > 0L)) {
    "SELECT \"sample_id\", \"key\" FROM \"frames\" WHERE \"depth\" = 1"
  } else {
    paste(
      "SELECT \"f\".\"sample_id\", \"f\".\"key\" FROM \"frames\" AS \"f\" INNER JOIN",
      "(SELECT \"sample_id\", MIN(\"depth\") AS \"depth\" FROM \"frames\" GROUP BY \"sample_id\") AS \"m\"",
      "ON \"f\".\"sample_id\" = \"m\".\"sample_id\" AND \"f\".\"depth\" = \"m\".\"depth\""
    )
  }
  sums <- db_query(con, paste(
    "WITH \"chosen\" AS {chosen},",
    "\"frames\" AS (SELECT \"s\".\"sample_id\", \"s\".\"depth\", \"k\".\"key\" FROM {stack} AS \"s\"",
    "INNER JOIN {keys} AS \"k\" ON \"s\".\"location_id\" = \"k\".\"location_id\")",
    "SELECT 1 AS \"self\", \"i\".\"key\", SUM(\"c\".\"value\") AS \"value\" FROM ({innermost}) AS \"i\"",
    "INNER JOIN \"chosen\" AS \"c\" ON \"i\".\"sample_id\" = \"c\".\"sample_id\" GROUP BY \"i\".\"key\"",
    "UNION ALL",
    "SELECT 0 AS \"self\", \"d\".\"key\", SUM(\"c\".\"value\") AS \"value\"",
    "FROM (SELECT DISTINCT \"sample_id\", \"key\" FROM \"frames\") AS \"d\"",
    "INNER JOIN \"chosen\" AS \"c\" ON \"d\".\"sample_id\" = \"c\".\"sample_id\" GROUP BY \"d\".\"key\""
  ), chosen = values$chosen, stack = parts$stack, keys = sql_name(con, keys), innermost = innermost)
  per_key <- function(rows) {
    out <- numeric(n_keys)
    out[as.integer(rows$key)] <- as.double(rows$value)
    out
  }
  self <- as.double(sums$self) == 1
  list(
    self_value = per_key(sums[self, , drop = FALSE]),
    total = per_key(sums[!self, , drop = FALSE]),
    grand_total = values$grand_total
  )
}

# `parts` with the stacks and values of sample type `type` in memory: for a
# database-backed profile, one sample per distinct stack with the summed value
# of its samples (what call trees and folded stacks are made of).
stacks_in_memory <- function(parts, type, call = rlang::caller_env()) {
  if (!is_db_table(parts$values)) {
    return(parts)
  }
  values <- db_values_of_type(parts$values, type, "Can't build the call tree.", call)
  con <- parts$values$con
  grouped <- db_query(con, paste(
    "SELECT \"s\".\"stack\", SUM(\"c\".\"value\") AS \"value\" FROM {chosen} AS \"c\"",
    "LEFT JOIN ({stacks}) AS \"s\" ON \"c\".\"sample_id\" = \"s\".\"sample_id\" GROUP BY \"s\".\"stack\""
  ), chosen = values$chosen, stacks = db_stack_signatures(parts$stack))
  grouped <- grouped[order(grouped$stack, method = "radix"), , drop = FALSE]
  n <- nrow(grouped)
  parts$stack <- stack_rows_of_signatures(grouped$stack)
  parts$values <- tibble::new_tibble(list(
    sample_id = seq_len(n), type = rep(type, n), value = as.double(grouped$value)
  ), nrow = n)
  parts
}

# ---------------------------------------------------------------------------
# Stacks and label sets as text, so that the database can group samples by them

# A query of `sample_id` and `stack`: the frames of each sample as
# "depth:location_id" entries joined by commas, innermost first. Each entry
# names its depth, so the text reads back right in any order; ordered entries
# only make equal stacks group together (SQLite before 3.44 has no ORDER BY in
# aggregates: its rows are fed in the order of an ordered subquery).
db_stack_signatures <- function(stack) {
  db_concatenated(stack, "stack", "CAST(\"depth\" AS TEXT) || ':' || CAST(\"location_id\" AS TEXT)", "\"depth\"")
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
    "SELECT \"sample_id\", string_agg({entry}, ',' ORDER BY {order_by}) AS {name} FROM {table} AS \"r\" GROUP BY \"sample_id\""
  }
  sql_fill(template, entry = entry, name = sql_name(table$con, name), table = table, order_by = order_by)
}

# The distinct labels of sample_labels numbered (`dictionary`, collected), and
# a query of each sample's set of label numbers as text (`sets`: `sample_id`
# and `labels`).
db_label_sets <- function(labels) {
  con <- labels$con
  columns <- paste(sql_name(con, intersect(v2_schema()$columns$sample_labels$name[-1L], labels$columns)), collapse = ", ")
  numbered <- list(con = con, sql = sql_fill(
    "SELECT \"sample_id\", {columns}, DENSE_RANK() OVER (ORDER BY {columns}) AS \"label_id\" FROM {labels} AS \"l\"",
    columns = columns, labels = labels
  ))
  class(numbered) <- "profile_db_table"
  dictionary <- db_query(con, "SELECT DISTINCT \"label_id\", {columns} FROM {numbered} AS \"n\"",
    columns = columns, numbered = numbered
  )
  dictionary$label_id <- as_column_type(dictionary$label_id, "integer")
  list(
    dictionary = as_schema_types(dictionary[order(dictionary$label_id), , drop = FALSE], "sample_labels"),
    sets = db_concatenated(numbered, "labels", "CAST(\"label_id\" AS TEXT)", "\"label_id\"")
  )
}

# ---------------------------------------------------------------------------
# Writing

# What the writers get for a database-backed profile: after validation (as
# the writers validate in memory), the profile in memory with one sample per
# distinct source, stack and label set, its summable values added up. Gauges
# (heap sizes at a tick) cannot be added up and are left out; per-sample
# columns such as `samples$time` become NA.
profile_for_writing <- function(x, call = rlang::caller_env()) {
  if (!is_db_profile(x)) {
    return(x)
  }
  validate_db(x, call = call)
  tables <- db_profile_tables(x, call = call)
  local <- tables$local
  db <- tables$db
  con <- db$samples$con
  labelled <- "sample_labels" %in% names(db)
  if (labelled) {
    label_sets <- db_label_sets(db$sample_labels)
    labels_join <- sql_fill(
      "LEFT JOIN ({sets}) AS \"l\" ON \"s\".\"sample_id\" = \"l\".\"sample_id\"",
      sets = label_sets$sets
    )
    labels <- "\"l\".\"labels\""
  } else {
    labels_join <- ""
    labels <- "CAST(NULL AS TEXT)"
  }
  gauges <- paste(sql_string(con, v2_schema()$gauge_types), collapse = ", ")
  rows <- db_query(con, paste(
    "SELECT \"p\".\"source_id\", \"p\".\"stack\", \"p\".\"labels\", \"v\".\"type\", \"v\".\"unit\",",
    "SUM(\"v\".\"value\") AS \"value\", MIN(\"p\".\"sample_id\") AS \"first_sample\" FROM",
    "(SELECT \"s\".\"sample_id\", \"s\".\"source_id\", \"t\".\"stack\", {labels} AS \"labels\" FROM {samples} AS \"s\"",
    "LEFT JOIN ({stacks}) AS \"t\" ON \"s\".\"sample_id\" = \"t\".\"sample_id\" {labels_join}) AS \"p\"",
    "LEFT JOIN (SELECT * FROM {values} AS \"w\" WHERE \"type\" NOT IN ({gauges})) AS \"v\"",
    "ON \"p\".\"sample_id\" = \"v\".\"sample_id\"",
    "GROUP BY \"p\".\"source_id\", \"p\".\"stack\", \"p\".\"labels\", \"v\".\"type\", \"v\".\"unit\""
  ),
  labels = labels, samples = db$samples, stacks = db_stack_signatures(db$sample_locations),
  labels_join = labels_join, values = db$sample_values, gauges = gauges
  )
  rows$source_id <- as_column_type(rows$source_id, "integer")
  aggregated <- aggregated_sample_tables(rows, local)
  if (labelled) {
    aggregated$sample_labels <- label_rows_of_sets(aggregated$label_sets, label_sets$dictionary, local$sample_labels)
  }
  for (t in intersect(names(local), per_sample_tables)) {
    local[[t]] <- as_schema_types(aggregated[[t]], t)
  }
  dm_from_v2_tables(local)
}

# Writes a database-backed profile with `write` (a writer of a format whose
# files are the concatenation of one part per source, such as Rprof's
# segments) a batch of sources at a time: each batch of at most
# `batch_samples` samples (or one source) is collected and written to a part,
# the parts are appended to a file next to `path` that then replaces it.
write_by_sources <- function(x, path, write, batch_samples = 1e6, call = rlang::caller_env()) {
  validate_db(x, call = call)
  tables <- db_profile_tables(x, call = call)
  counts <- db_query(tables$db$samples$con,
    "SELECT \"source_id\", COUNT(*) AS \"n_samples\" FROM {samples} AS \"s\" GROUP BY \"source_id\"",
    samples = tables$db$samples
  )
  sources <- tables$local$sources$source_id
  n_samples <- as.double(counts$n_samples)[match(sources, counts$source_id)]
  n_samples[is.na(n_samples)] <- 0
  batch <- source_batches(n_samples, batch_samples)
  out <- tempfile(pattern = paste0(".", basename(path), "-"), tmpdir = dirname(path))
  part <- tempfile()
  on.exit(unlink(c(out, part)))
  if (!file.create(out, showWarnings = FALSE)) {
    abort_profile("io", "Can't create a file in the directory of {.file {path}}.", path = path, call = call)
  }
  for (ids in split(sources, batch)) {
    write(local_profile(dm::dm_filter(x, sources = .data$source_id %in% !!ids)), part)
    file.append(out, part)
  }
  if (file.exists(path)) {
    Sys.chmod(out, file.mode(path))
  }
  if (!file.rename(out, path)) {
    abort_profile("io", "Can't replace {.file {path}}.", path = path, call = call)
  }
}

# Consecutive sources in batches of at most `limit` samples (a larger source
# alone): the batch of each source.
source_batches <- function(n_samples, limit) {
  batch <- integer(length(n_samples))
  current <- 1L
  filled <- 0
  for (i in seq_along(n_samples)) {
    if (filled > 0 && filled + n_samples[[i]] > limit) {
      current <- current + 1L
      filled <- 0
    }
    batch[[i]] <- current
    filled <- filled + n_samples[[i]]
  }
  batch
}

# The per-sample tables of the aggregated profile from the grouped rows (one
# per source, stack, label set and sample type): samples numbered in order of
# their first sample in the database, values in the order of their source's
# declared sample types.
aggregated_sample_tables <- function(rows, local) {
  groups <- rows[c("source_id", "stack", "labels")]
  group <- vctrs::vec_group_id(groups)
  first <- vapply(split(as.double(rows$first_sample), group), min, numeric(1))
  new_id <- integer(length(first))
  new_id[order(first)] <- seq_along(first)
  sample_id <- new_id[group]
  heads <- !duplicated(group)
  order_of_samples <- order(sample_id[heads])
  samples <- with_columns_of(local$samples, list(
    sample_id = sample_id[heads][order_of_samples],
    source_id = as.integer(rows$source_id[heads][order_of_samples])
  ))
  has_value <- !is.na(rows$type)
  declared <- local[["sample_types"]]
  position <- if (is.null(declared)) {
    rep(NA_integer_, sum(has_value))
  } else {
    vctrs::vec_match(
      data.frame(source_id = as.integer(rows$source_id[has_value]), type = rows$type[has_value]),
      data.frame(source_id = declared$source_id, type = declared$type)
    )
  }
  value_order <- order(sample_id[has_value], position, rows$type[has_value], method = "radix")
  sample_values <- with_columns_of(local$sample_values, list(
    sample_id = sample_id[has_value][value_order],
    type = rows$type[has_value][value_order],
    unit = rows$unit[has_value][value_order],
    value = as.double(rows$value[has_value][value_order])
  ))
  stacks <- rows$stack[heads][order_of_samples]
  list(
    samples = samples,
    sample_values = sample_values,
    sample_locations = with_columns_of(local$sample_locations, as.list(stack_rows_of_signatures(stacks))),
    label_sets = rows$labels[heads][order_of_samples]
  )
}

# The rows of sample_labels of label sets written by db_label_sets(): sample i
# has the labels numbered in sets[i] (NA: none).
label_rows_of_sets <- function(sets, dictionary, template) {
  numbers <- strsplit(ifelse(is.na(sets), "", sets), ",", fixed = TRUE)
  label_id <- as.integer(unlist(numbers, use.names = FALSE))
  rows <- dictionary[match(label_id, dictionary$label_id), setdiff(names(dictionary), "label_id"), drop = FALSE]
  with_columns_of(template, c(list(sample_id = rep(seq_along(sets), lengths(numbers))), as.list(rows)))
}

# A table with the columns of `template` (a table with no rows): those in
# `columns`, the others NA.
with_columns_of <- function(template, columns) {
  n <- length(columns[[1L]])
  out <- lapply(names(template), function(col) {
    if (!is.null(columns[[col]])) columns[[col]] else vctrs::vec_init(template[[col]], n)
  })
  names(out) <- names(template)
  tibble::new_tibble(out, nrow = n)
}

# ---------------------------------------------------------------------------
# Temporary tables

# A temporary table of `location_id` (its primary key) and `key`; returns its
# name.
db_temporary_table <- function(con, location_id, key) {
  db_env$temporary <- db_env$temporary + 1L
  name <- sprintf("profile_keys_%d_%d", Sys.getpid(), db_env$temporary)
  DBI::dbExecute(con, sprintf(
    "CREATE TEMPORARY TABLE %s (\"location_id\" INTEGER PRIMARY KEY, \"key\" INTEGER)", sql_name(con, name)
  ))
  DBI::dbAppendTable(con, name, data.frame(location_id = as.integer(location_id), key = as.integer(key)))
  name
}

db_drop_table <- function(con, name) {
  DBI::dbExecute(con, paste("DROP TABLE", sql_name(con, name)))
}

db_env <- new.env(parent = emptyenv())
db_env$temporary <- 0L
