# The SQL layer of the database-backed profiles (the rooms of R/db*.R: see
# R/db.R): what differs between DBI drivers (SQLite, PostgreSQL through
# RPostgres and RPostgreSQL, DuckDB, others), the catalog of a connection,
# queries written as SQL templates with quoted names and strings, the types
# of collected columns, transactions and locks, inserts, temporary tables,
# and the rows of each sample concatenated as text. It knows the format's
# columns (v2_schema()) but not the layout of R/db-layout.R, which it lies
# under: nothing here uses another R/db*.R file.

# ---------------------------------------------------------------------------
# Dialects: what differs between the DBI drivers

# The SQL dialect of a connection: the drivers the package is tested with,
# "other" for the rest (which get the portable SQL).
db_dialect <- function(con) {
  if (inherits(con, "SQLiteConnection")) {
    "sqlite"
  } else if (inherits(con, c("PqConnection", "PostgreSQLConnection"))) {
    "postgres"
  } else if (inherits(con, "duckdb_connection")) {
    "duckdb"
  } else {
    "other"
  }
}

# Whether the tables the package makes declare their foreign keys. Not on
# DuckDB, which checks a key at each statement against the rows as they were
# before it (DuckDB's documented limitation of foreign keys): a delete of
# samples and then of the sources they referred to, in one transaction, is
# refused there. The keys are the same on every database all the same: the
# dm of profile_db() declares them, validate_profile() checks them, and
# appends and deletes keep them.
db_declares_foreign_keys <- function(con) {
  db_dialect(con) != "duckdb"
}

# The FOREIGN KEY clause of a CREATE TABLE statement (`column` of the table
# referring to `ref` of `table`), or NULL where the tables declare none.
db_foreign_key_sql <- function(con, column, table, ref) {
  if (db_declares_foreign_keys(con)) {
    q <- function(x) paste(sql_name(con, x), collapse = ", ")
    sprintf("FOREIGN KEY (%s) REFERENCES %s (%s)", q(column), q(table), q(ref))
  }
}

# ---------------------------------------------------------------------------
# The catalog: connection, tables, views and columns

# DBI::dbIsValid(), or a query where a driver has no method for it
# (RPostgreSQL).
db_is_valid <- function(con) {
  tryCatch(DBI::dbIsValid(con), error = function(e) {
    tryCatch(
      {
        DBI::dbGetQuery(con, 'SELECT 1 AS "one"')
        TRUE
      },
      error = function(e) FALSE
    )
  })
}

# The tables and views of the connection's default schema: `name`, `view`.
db_relations <- function(con) {
  rows <- switch(db_dialect(con),
    sqlite = DBI::dbGetQuery(con, paste(
      "SELECT \"name\", \"type\" FROM \"sqlite_master\" WHERE \"type\" IN ('table', 'view')"
    )),
    postgres = ,
    duckdb = DBI::dbGetQuery(con, paste(
      'SELECT "table_name" AS "name", "table_type" AS "type"',
      'FROM "information_schema"."tables" WHERE "table_schema" = current_schema()'
    )),
    {
      names <- DBI::dbListTables(con)
      data.frame(name = names, type = rep("table", length(names)))
    }
  )
  data.frame(
    name = as.character(rows$name), view = grepl("view", rows$type, ignore.case = TRUE),
    stringsAsFactors = FALSE
  )
}

# The columns of every table and view of the default schema, in their order:
# a named list (one query where the database has an information schema or,
# SQLite, table-valued pragma functions).
db_all_columns <- function(con) {
  rows <- switch(db_dialect(con),
    sqlite = DBI::dbGetQuery(con, paste(
      'SELECT "m"."name" AS "table_name", "c"."name" AS "column_name"',
      'FROM "sqlite_master" AS "m", pragma_table_info("m"."name") AS "c"',
      "WHERE \"m\".\"type\" IN ('table', 'view') ORDER BY \"m\".\"name\", \"c\".\"cid\""
    )),
    postgres = ,
    duckdb = DBI::dbGetQuery(con, paste(
      'SELECT "table_name", "column_name" FROM "information_schema"."columns"',
      'WHERE "table_schema" = current_schema() ORDER BY "table_name", "ordinal_position"'
    )),
    NULL
  )
  if (is.null(rows)) {
    names <- db_relations(con)$name
    columns <- lapply(names, function(t) db_columns(con, t))
    names(columns) <- names
    return(columns)
  }
  split(as.character(rows$column_name), factor(rows$table_name, levels = unique(rows$table_name)))
}

# The columns of a table or view.
db_columns <- function(con, table) {
  names(DBI::dbGetQuery(con, sprintf("SELECT * FROM %s WHERE 1 = 0", sql_name(con, table))))
}

# Whether table `t` of the database has no row.
db_table_is_empty <- function(con, t) {
  rows <- DBI::dbGetQuery(con, sprintf("SELECT 1 AS one FROM %s LIMIT 1", sql_name(con, t)))
  nrow(rows) == 0L
}

# ---------------------------------------------------------------------------
# Queries

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

# Values as SQL literals that keep every value: doubles with 17 digits.
sql_literals <- function(v, con) {
  out <- if (is.character(v)) {
    as.character(DBI::dbQuoteString(con, v))
  } else if (is.logical(v)) {
    ifelse(v, "TRUE", "FALSE")
  } else if (is.integer(v)) {
    as.character(v)
  } else {
    ifelse(is.finite(v), sprintf("%.17g", v), ifelse(
      is.nan(v) | is.na(v), "NULL", ifelse(v > 0, "'Infinity'", "'-Infinity'")
    ))
  }
  out[is.na(v)] <- "NULL"
  out
}

# An id or a count as text, for messages and SQL: every digit, no exponent
# ("NA" for none).
format_id <- function(id) {
  if (length(id) == 0L || is.na(id)) "NA" else format(as.double(id), scientific = FALSE)
}

# ---------------------------------------------------------------------------
# Columns collected, in the types of the format

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
# Transactions and locks

# Runs `code` in one transaction, rolled back if it fails or is interrupted
# (an interrupt becomes a profile_error_io). SQLite's transaction takes the
# write lock when it starts (BEGIN IMMEDIATE, waiting for another writer as
# long as the connection's busy timeout), so that no append fails because
# another one started writing first.
db_transaction <- function(con, code, what = "append") {
  sqlite <- db_dialect(con) == "sqlite"
  if (sqlite) {
    DBI::dbExecute(con, "BEGIN IMMEDIATE")
  } else {
    DBI::dbBegin(con)
  }
  finished <- FALSE
  on.exit(if (!finished) try(db_rollback(con, sqlite), silent = TRUE))
  value <- withCallingHandlers(force(code), interrupt = function(e) {
    try(db_rollback(con, sqlite), silent = TRUE)
    finished <<- TRUE
    abort_profile("io", "The {what} was interrupted; the database is unchanged.", what = what)
  })
  if (sqlite) DBI::dbExecute(con, "COMMIT") else DBI::dbCommit(con)
  finished <- TRUE
  value
}

db_rollback <- function(con, sqlite) {
  if (sqlite) DBI::dbExecute(con, "ROLLBACK") else DBI::dbRollback(con)
}

# SQLite waits this long (ms) for another connection's write lock.
db_sqlite_busy_ms <- 600000L

# SQLite: the connection waits for another connection's write lock (up to
# db_sqlite_busy_ms) while appending; the function returned restores the
# connection's own timeout.
db_sqlite_busy <- function(con) {
  if (db_dialect(con) != "sqlite") {
    return(function() invisible())
  }
  before <- DBI::dbGetQuery(con, "PRAGMA busy_timeout")[[1L]]
  DBI::dbExecute(con, sprintf("PRAGMA busy_timeout = %d", max(before, db_sqlite_busy_ms)))
  function() try(DBI::dbExecute(con, sprintf("PRAGMA busy_timeout = %d", before)), silent = TRUE)
}

# Makes the appends, deletes and upgrades of several connections wait for
# each other: inside the transaction, PostgreSQL takes a transaction-level
# advisory lock (also around creating the tables); other databases update
# the row "layout" of the table `info` (the layout's profile_db_info, a
# table of `key` and `value`) where it exists, which holds its row lock
# until the transaction ends (SQLite's transaction holds the write lock
# already).
db_lock <- function(con, info) {
  if (db_dialect(con) == "postgres") {
    # (the function returns void, which RPostgreSQL cannot read)
    DBI::dbGetQuery(con, paste(
      'SELECT 1 AS "locked" FROM (SELECT pg_advisory_xact_lock(7303429125)) AS "l"'
    ))
  } else if (info %in% db_relations(con)$name) {
    DBI::dbExecute(con, sql_fill(
      "UPDATE {info} SET \"value\" = \"value\" WHERE \"key\" = 'layout'",
      info = sql_name(con, info)
    ))
  }
  invisible()
}

# ---------------------------------------------------------------------------
# Inserting rows

# Inserts the rows of a data frame into a table. The rows of a table with a
# key into itself (a location inlined into another) go in as levels, each
# after the rows it refers to: DuckDB checks the keys of a statement against
# the rows stored before it, not those the statement adds.
db_insert_rows <- function(con, table, rows) {
  rows <- as.data.frame(rows)
  levels <- db_self_reference_levels(table, rows)
  if (length(levels) == 1L) {
    return(db_insert_statement(con, table, rows))
  }
  for (level in levels) {
    db_insert_statement(con, table, rows[level, , drop = FALSE])
  }
  invisible()
}

# The rows of `rows` (of table `table`) in the order of db_insert_rows(): one
# level of row numbers where the table has no key into itself or none of
# the rows refers to another of them; else the rows whose key refers to no
# row of `rows`, then those that refer to them, and so on. Rows in a cycle
# (which the validator refuses) go last, for the database to refuse.
db_self_reference_levels <- function(table, rows) {
  fk <- v2_schema()$foreign_keys
  self <- which(fk$table == table & fk$ref_table == table)
  n <- nrow(rows)
  key <- fk$column[self]
  if (!length(self) || !n || !all(key %in% names(rows))) {
    return(list(seq_len(n)))
  }
  parent <- match(rows[[key[[1L]]]], rows[[fk$ref_column[[self[[1L]]]]]])
  level <- ifelse(is.na(parent), 0L, NA_integer_)
  repeat {
    todo <- which(is.na(level))
    if (!length(todo)) break
    ready <- todo[!is.na(level[parent[todo]])]
    if (!length(ready)) {
      # (0 when every row is in a cycle: no level before them)
      level[todo] <- max(-1L, level, na.rm = TRUE) + 1L
      break
    }
    level[ready] <- level[parent[ready]] + 1L
  }
  unname(split(seq_len(n), level))
}

# One insert of the rows of a data frame into a table: DBI::dbAppendTable()
# where the driver binds parameters, else INSERT statements of literal values
# (RPostgreSQL), a thousand rows each.
db_insert_statement <- function(con, table, rows) {
  if (!inherits(con, "PostgreSQLConnection")) {
    DBI::dbAppendTable(con, table, rows)
    return(invisible())
  }
  columns <- paste(sql_name(con, names(rows)), collapse = ", ")
  literals <- lapply(rows, sql_literals, con = con)
  tuples <- do.call(paste, c(literals, list(sep = ", ")))
  for (chunk in split(tuples, ceiling(seq_along(tuples) / 1000))) {
    DBI::dbExecute(con, sprintf(
      "INSERT INTO %s (%s) VALUES (%s)", sql_name(con, table), columns,
      paste(chunk, collapse = "), (")
    ))
  }
  invisible()
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

# ---------------------------------------------------------------------------
# Rows of a sample as text, so that the database can group samples by them

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
# sample i has the frames of stacks[i] (NA: none). (A query of no rows gives
# the column as logical(0) in SQLite, and ifelse() of no rows too: an empty
# profile's are made text here.)
stack_rows_of_signatures <- function(stacks) {
  stacks <- as.character(stacks)
  stacks[is.na(stacks)] <- ""
  entries <- strsplit(stacks, ",", fixed = TRUE)
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
