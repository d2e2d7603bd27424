# The layout of a profile database (2.2): each distinct stack stored once.
#
# What a user sees is the v2 format: the tables `meta`, `sources`, `locations`,
# `functions` and the extension tables are tables of their own names, and
# `samples`, `sample_values` and `sample_locations` are views. Under the views:
#
# - `profile_samples`: one row per sample with the columns of `samples`, the
#   id of its stack (`stack_id`) and its values in the columns `value_1`,
#   `value_2`, ... (a *slot* per sample type of its source; NULL where the
#   sample has no value of that type);
# - `profile_value_slots`: which type each slot of a source holds
#   (`source_id`, `slot`, `type_id`), and `profile_value_types` the types
#   (`type_id`, `type`, `unit`), each pair stored once;
# - `profile_stacks`: each distinct stack once (`stack_id`; `frames`, the
#   location ids innermost first joined by commas, unique, which is how an
#   append finds the stacks stored already; `n_frames`), and
#   `profile_stack_frames` its frames (`stack_id`, `depth`, `location_id`);
# - `profile_source_stacks`: per source and stack, the number of samples and
#   the sums of their values in each slot (`source_id`, `stack_id`,
#   `n_samples`, `value_1`, ...), written with the samples by the append
#   that adds them: what summaries of whole sources read, so that they group
#   the distinct stacks of each source rather than every sample;
# - `profile_db_info`: the layout's version (`key` "layout"); its row is also
#   what appends lock, one at a time, on databases without advisory locks.
#
# Summaries, flame graphs, folded stacks, the pprof writer and validation read
# these tables directly: values are summed per stack id in the database and
# only the distinct stacks come back to R (R/db-summary.R). A database of
# profile 2.1 (the seven tables as plain tables) is read as it is and
# upgraded by profile_db_upgrade() (R/db-upgrade.R).
#
# This file also makes the tables of the format (those that are not views),
# and reads the layout's own tables (value slots, the frames of stored
# stacks). What differs between DBI drivers is the SQL layer's, R/db-sql.R.

db_layout_version <- "2.2"

db_physical <- list(
  samples = "profile_samples",
  stacks = "profile_stacks",
  frames = "profile_stack_frames",
  types = "profile_value_types",
  slots = "profile_value_slots",
  source_stacks = "profile_source_stacks",
  info = "profile_db_info"
)

db_view_tables <- c("samples", "sample_values", "sample_locations")

# ---------------------------------------------------------------------------
# Which layout a database has

# "none" (no profile tables), "2.1" (the tables of the format as plain
# tables: profile 2.1, or dm::copy_dm_to()), or the version of the layout of
# this file ("2.2").
db_layout <- function(con) {
  relations <- db_relations(con)
  if (db_physical$info %in% relations$name) {
    found <- DBI::dbGetQuery(con, sprintf(
      "SELECT \"value\" FROM %s WHERE \"key\" = 'layout'", sql_name(con, db_physical$info)
    ))
    return(if (nrow(found)) as.character(found$value[[1L]]) else "unknown")
  }
  if ("samples" %in% relations$name[!relations$view]) {
    return("2.1")
  }
  if (any(v2_schema()$tables %in% relations$name)) "unknown" else "none"
}

# The number of value slots of profile_samples.
db_slot_count <- function(columns) {
  sum(grepl("^value_[0-9]+$", columns))
}

# ---------------------------------------------------------------------------
# Creating the layout

# CREATE statements of the layout's own tables, with `n_slots` value columns.
# Longer than the house's 80 lines: it is the list of the tables' definitions,
# one statement each, read best in one place beside the layout's description.
db_layout_tables_sql <- function(con, n_slots = 1L) {
  q <- function(x) paste(sql_name(con, x), collapse = ", ")
  type <- function(prototype) DBI::dbDataType(con, prototype)
  int <- type(integer())
  dbl <- type(double())
  chr <- type(character())
  create <- function(table, columns, constraints) {
    body <- paste(c(columns, constraints), collapse = ",\n  ")
    sprintf("CREATE TABLE %s (\n  %s\n)", q(table), body)
  }
  fk <- function(column, table, ref) db_foreign_key_sql(con, column, table, ref)
  p <- db_physical
  spec <- v2_schema()$columns$samples
  prototypes <- list(
    integer = integer(), double = double(), character = character(), logical = logical()
  )
  sample_columns <- vapply(seq_along(spec$name), function(j) {
    paste(q(spec$name[[j]]), type(prototypes[[spec$col_type[[j]]]]))
  }, character(1))
  index <- function(name, table, column, unique = FALSE, using = "") {
    sprintf(
      "CREATE %sINDEX %s ON %s %s(%s)",
      if (unique) "UNIQUE " else "", q(name), q(table), using, q(column)
    )
  }
  stacks_index <- if (db_dialect(con) == "postgres") {
    # a B-tree entry is limited to a third of a page; a hash index is not
    index("profile_stacks_frames", p$stacks, "frames", using = "USING hash ")
  } else {
    index("profile_stacks_frames", p$stacks, "frames", unique = TRUE)
  }
  # The samples in the order of their source and stack on SQLite (a table
  # WITHOUT ROWID is stored in the order of its primary key), so that
  # grouping them by source and stack, which validation does with every
  # sample, reads the table in order: SQLite has no hash aggregation, and
  # otherwise sorts every row. A unique index keeps sample ids unique. Other
  # databases keep the samples in the order they were appended, with an
  # index on the source.
  sqlite <- db_dialect(con) == "sqlite"
  samples_key <- if (sqlite) c("source_id", "stack_id", "sample_id") else "sample_id"
  samples_table <- paste0(create(
    p$samples,
    c(
      sample_columns, paste(q("stack_id"), int, "NOT NULL"),
      paste(sql_name(con, db_slot_names(n_slots)), dbl)
    ),
    c(
      sprintf("PRIMARY KEY (%s)", q(samples_key)),
      fk("source_id", "sources", "source_id"), fk("stack_id", p$stacks, "stack_id")
    )
  ), if (sqlite) " WITHOUT ROWID" else "")
  samples_index <- if (sqlite) {
    index("profile_samples_sample_id", p$samples, "sample_id", unique = TRUE)
  } else {
    index("profile_samples_source_id", p$samples, "source_id")
  }
  c(
    create(
      p$info, c(paste(q("key"), chr, "NOT NULL"), paste(q("value"), chr)),
      sprintf("PRIMARY KEY (%s)", q("key"))
    ),
    create(
      p$types,
      c(
        paste(q("type_id"), int, "NOT NULL"),
        paste(sql_name(con, c("type", "unit")), chr, "NOT NULL")
      ),
      c(sprintf("PRIMARY KEY (%s)", q("type_id")), sprintf("UNIQUE (%s)", q(c("type", "unit"))))
    ),
    create(
      p$slots, paste(sql_name(con, c("source_id", "slot", "type_id")), int, "NOT NULL"),
      c(
        sprintf("PRIMARY KEY (%s)", q(c("source_id", "slot"))),
        sprintf("UNIQUE (%s)", q(c("source_id", "type_id"))),
        fk("source_id", "sources", "source_id"), fk("type_id", p$types, "type_id")
      )
    ),
    create(
      p$stacks,
      c(
        paste(q("stack_id"), int, "NOT NULL"), paste(q("frames"), chr, "NOT NULL"),
        paste(q("n_frames"), int)
      ),
      sprintf("PRIMARY KEY (%s)", q("stack_id"))
    ),
    stacks_index,
    create(
      p$frames, paste(sql_name(con, c("stack_id", "depth", "location_id")), int, "NOT NULL"),
      c(
        sprintf("PRIMARY KEY (%s)", q(c("stack_id", "depth"))),
        fk("stack_id", p$stacks, "stack_id"), fk("location_id", "locations", "location_id")
      )
    ),
    samples_table,
    samples_index,
    create(
      p$source_stacks,
      c(
        paste(sql_name(con, c("source_id", "stack_id", "n_samples")), int, "NOT NULL"),
        paste(sql_name(con, db_slot_names(n_slots)), dbl)
      ),
      c(
        sprintf("PRIMARY KEY (%s)", q(c("source_id", "stack_id"))),
        fk("source_id", "sources", "source_id"), fk("stack_id", p$stacks, "stack_id")
      )
    )
  )
}

db_slot_names <- function(n) {
  if (n > 0) paste0("value_", seq_len(n)) else character()
}

# The CREATE VIEW statements of `samples`, `sample_values` and
# `sample_locations` over profile_samples with the columns `columns`.
db_views_sql <- function(con, columns) {
  q <- function(x) paste(sql_name(con, x), collapse = ", ")
  p <- db_physical
  sample_columns <- intersect(v2_schema()$columns$samples$name, columns)
  slots <- seq_len(db_slot_count(columns))
  value <- sprintf(
    'CASE "v"."slot" %s END',
    paste(
      sprintf('WHEN %d THEN "p".%s', slots, sql_name(con, paste0("value_", slots))),
      collapse = " "
    )
  )
  c(
    samples = sprintf(
      "CREATE VIEW %s AS SELECT %s FROM %s", q("samples"), q(sample_columns), q(p$samples)
    ),
    sample_values = paste(
      sprintf("CREATE VIEW %s AS", q("sample_values")),
      'SELECT "p"."sample_id" AS "sample_id",',
      '"t"."type" AS "type", "t"."unit" AS "unit",',
      sprintf('%s AS "value" FROM %s AS "p"', value, q(p$samples)),
      sprintf('INNER JOIN %s AS "v" ON "v"."source_id" = "p"."source_id"', q(p$slots)),
      sprintf('INNER JOIN %s AS "t" ON "t"."type_id" = "v"."type_id"', q(p$types)),
      sprintf("WHERE %s IS NOT NULL", value)
    ),
    sample_locations = paste(
      sprintf("CREATE VIEW %s AS", q("sample_locations")),
      'SELECT "p"."sample_id" AS "sample_id", "f"."depth" AS "depth",',
      sprintf('"f"."location_id" AS "location_id" FROM %s AS "p"', q(p$samples)),
      sprintf('INNER JOIN %s AS "f" ON "f"."stack_id" = "p"."stack_id"', q(p$frames))
    )
  )
}

# Drops and creates the views again (after columns were added to
# profile_samples).
db_replace_views <- function(con) {
  relations <- db_relations(con)
  for (view in intersect(db_view_tables, relations$name[relations$view])) {
    DBI::dbExecute(con, paste("DROP VIEW", sql_name(con, view)))
  }
  for (statement in db_views_sql(con, db_columns(con, db_physical$samples))) {
    DBI::dbExecute(con, statement)
  }
}

# Creates the tables of the format (those that are not views) and the
# layout's tables and views in an empty database.
db_create_layout <- function(con, n_slots = 1L) {
  for (t in setdiff(db_table_order(), db_view_tables)) {
    if (t == "sample_labels") {
      for (statement in db_layout_tables_sql(con, n_slots)) DBI::dbExecute(con, statement)
    }
    for (statement in db_create_table_sql(con, t)) DBI::dbExecute(con, statement)
    if (t == "meta") {
      db_insert_rows(con, "meta", data.frame(key = "version", value = "2.0"))
    }
  }
  for (statement in db_views_sql(con, db_columns(con, db_physical$samples))) {
    DBI::dbExecute(con, statement)
  }
  db_insert_rows(con, db_physical$info, data.frame(key = "layout", value = db_layout_version))
}

# Adds the tables and columns of `tables` that the database lacks (an
# extension table or column of a later version of the format, such as the
# table tasks of a recording of parallel code), and `n_slots` value slots;
# replaces the views if profile_samples changed.
db_add_columns <- function(con, tables, n_slots) {
  db_add_tables(con, tables)
  added <- FALSE
  known <- db_all_columns(con)
  add <- function(table, column, prototype) {
    DBI::dbExecute(con, sprintf(
      "ALTER TABLE %s ADD COLUMN %s %s",
      sql_name(con, table), sql_name(con, column), DBI::dbDataType(con, prototype)
    ))
  }
  formats <- setdiff(db_table_order(), c("sample_values", "sample_locations"))
  for (t in intersect(names(tables), formats)) {
    physical <- if (t == "samples") db_physical$samples else t
    wanted <- tables[[t]]
    if (t %in% db_ordered_tables) {
      wanted$position <- rep(NA_integer_, nrow(wanted))
    }
    for (col in setdiff(names(wanted), known[[physical]])) {
      add(physical, col, wanted[[col]])
      added <- added || t == "samples"
    }
  }
  slots <- db_slot_count(known[[db_physical$samples]])
  if (n_slots > slots) {
    for (name in db_slot_names(n_slots)[-seq_len(slots)]) {
      add(db_physical$samples, name, double())
      add(db_physical$source_stacks, name, double())
    }
    added <- TRUE
  }
  if (added) {
    db_replace_views(con)
  }
}

# Creates the tables of `tables` that the database lacks (a database made
# before the format had them, such as the table tasks).
db_add_tables <- function(con, tables) {
  known <- db_all_columns(con)
  for (t in setdiff(intersect(names(tables), db_table_order()), names(known))) {
    for (statement in db_create_table_sql(con, t)) DBI::dbExecute(con, statement)
  }
}

# ---------------------------------------------------------------------------
# The tables of the format

# A table of a database has no row order, but the rows of a profile have one:
# samples and ids in the order of their ids, the stack of a sample by depth,
# the sample types of a source in the order it declares them (pprof's default
# sample type is the last one), comments in the order they were written.
# Where ids do not tell, profile_db_append() numbers the rows in the column
# `position` (see db_ordered_tables).
db_ordered_tables <- c("sample_types", "source_comments")

# Pairs of columns that are unique in the format (src/rust/core/src/validate.rs).
db_unique_columns <- list(
  sample_values = c("sample_id", "type"),
  sample_locations = c("sample_id", "depth"),
  sample_types = c("source_id", "type")
)

# Columns that are looked up but lead no key or unique pair.
db_indexed_columns <- list(samples = "source_id", sample_labels = "sample_id")

# The tables of the format in an order where a table comes after those its
# foreign keys refer to (a table referring to itself aside).
db_table_order <- function() {
  schema <- v2_schema()
  fk <- schema$foreign_keys
  left <- schema$tables
  out <- character()
  while (length(left)) {
    ready <- left[vapply(left, function(t) {
      parents <- fk$ref_table[fk$table == t & fk$ref_table != t]
      all(parents %in% out)
    }, logical(1))]
    out <- c(out, ready)
    left <- setdiff(left, ready)
  }
  out
}

# CREATE TABLE (with the table's keys and unique pairs) and CREATE INDEX
# statements for table `t` of the format.
db_create_table_sql <- function(con, t) {
  schema <- v2_schema()
  q <- function(x) paste(DBI::dbQuoteIdentifier(con, x), collapse = ", ")
  spec <- schema$columns[[t]]
  prototypes <- list(
    integer = integer(), double = double(), character = character(), logical = logical()
  )
  columns <- vapply(seq_along(spec$name), function(j) {
    paste(q(spec$name[[j]]), DBI::dbDataType(con, prototypes[[spec$col_type[[j]]]]))
  }, character(1))
  if (t %in% db_ordered_tables) {
    columns <- c(columns, paste(q("position"), DBI::dbDataType(con, integer())))
  }
  pk <- schema$primary_keys
  fk <- schema$foreign_keys
  # a key into a view of the layout refers to the table under it
  fk$ref_table[fk$ref_table %in% db_view_tables] <- db_physical$samples
  constraints <- c(
    if (any(pk$table == t)) sprintf("PRIMARY KEY (%s)", q(pk$column[pk$table == t])),
    if (!is.null(db_unique_columns[[t]])) sprintf("UNIQUE (%s)", q(db_unique_columns[[t]])),
    unlist(lapply(which(fk$table == t), function(i) {
      db_foreign_key_sql(con, fk$column[[i]], fk$ref_table[[i]], fk$ref_column[[i]])
    }))
  )
  create <- sprintf(
    "CREATE TABLE %s (\n  %s\n)", q(t), paste(c(columns, constraints), collapse = ",\n  ")
  )
  indexes <- vapply(db_indexed_columns[[t]], function(col) {
    sprintf("CREATE INDEX %s ON %s (%s)", q(paste0(t, "_", col)), q(t), q(col))
  }, character(1))
  c(create, unname(indexes))
}

# ---------------------------------------------------------------------------
# Reading the layout's own tables

# The value slots of the sources (`source_id`, `slot`, `type`, `unit`).
db_slots <- function(con) {
  p <- db_physical
  slots <- DBI::dbGetQuery(con, sql_fill(paste(
    'SELECT "v"."source_id", "v"."slot", "t"."type", "t"."unit"',
    'FROM {slots} AS "v" INNER JOIN {types} AS "t" ON "t"."type_id" = "v"."type_id"'
  ), slots = sql_name(con, p$slots), types = sql_name(con, p$types)))
  slots$source_id <- as_column_type(slots$source_id, "integer")
  slots$slot <- as_column_type(slots$slot, "integer")
  slots[order(slots$source_id, slots$slot), , drop = FALSE]
}

# The frames of stacks (`stack_id`, `depth`, `location_id`), a batch of ids at
# a time.
db_stack_frames <- function(con, stack_ids) {
  batches <- split(stack_ids, ceiling(seq_along(stack_ids) / 5000))
  rows <- lapply(batches, function(ids) {
    DBI::dbGetQuery(con, sprintf(
      'SELECT "stack_id", "depth", "location_id" FROM %s WHERE "stack_id" IN (%s)',
      sql_name(con, db_physical$frames), paste(ids, collapse = ", ")
    ))
  })
  none <- data.frame(stack_id = integer(), depth = integer(), location_id = integer())
  rows <- do.call(rbind, c(list(none), rows))
  for (col in names(rows)) rows[[col]] <- as_column_type(rows[[col]], "integer")
  rows
}
