#' Upgrade a database of profiles written by profile 2.1
#'
#' Profile 2.1 stored every sample with its whole stack (`sample_locations`)
#' and every value with its type and unit as text (`sample_values`).
#' `profile_db_upgrade()` rewrites such a database in place into the layout of
#' this version, which stores each distinct stack once (see "Layout" in
#' [profile_db_append()]): the same profile, the same ids, in a fraction of
#' the space. It runs in one transaction: an upgrade that fails or is
#' interrupted leaves the database as it was. [profile_db_append()] and
#' [profile_db_delete()] refuse a database of the old layout (without changing
#' it) until it is upgraded; the other functions read either layout.
#'
#' @param con A DBI connection to a database of profiles.
#' @return The database's profile after the upgrade (as [profile_db()]),
#'   invisibly. A database in the current layout is left as it is.
#' @seealso [profile_db_append()], [profile_db_delete()].
#' @export
#' @examplesIf rlang::is_installed(c("RSQLite", "dbplyr"))
#' # A database in the layout of profile 2.1: the seven tables as tables
#' # (here made by dm::copy_dm_to(), which stores a profile the same way)
#' con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
#' x <- read_rprof(system.file("samples/rprof/memory.out", package = "profile"))
#' dm::copy_dm_to(con, x, temporary = FALSE)
#' try(profile_db_append(con, x))
#'
#' db <- profile_db_upgrade(con)
#' db <- profile_db_append(con, x)
#' profile_summary(db, n = 3)
#' DBI::dbDisconnect(con)
profile_db_upgrade <- function(con) {
  with_profile_errors("io", "Can't upgrade the database; it is unchanged.", {
    check_db_connection(con)
    layout <- db_layout(con)
    if (identical(layout, db_layout_version)) {
      return(invisible(profile_db(con)))
    }
    if (!identical(layout, "2.1")) {
      abort_profile("invalid", "The database has no profile tables of profile 2.1 to upgrade.")
    }
    busy <- db_sqlite_busy(con)
    on.exit(busy())
    db_transaction(con, what = "upgrade", {
      db_lock(con, db_physical$info)
      if (identical(db_layout(con), "2.1")) {
        db_upgrade_tables(con)
      }
    })
    invisible(profile_db(con))
  })
}

# The upgrade from 2.1: the per-sample tables are renamed, the layout's
# tables filled from them by SQL in the database (only the distinct value
# types, slots and stacks come to R), the old tables dropped and the views
# made. `sample_labels` is made again, so that its key refers to
# profile_samples.
db_upgrade_tables <- function(con) {
  p <- db_physical
  n <- function(x) sql_name(con, x)
  old <- c(
    samples = "profile_v21_samples", sample_values = "profile_v21_sample_values",
    sample_locations = "profile_v21_sample_locations", sample_labels = "profile_v21_sample_labels"
  )
  relations <- db_relations(con)$name
  old <- old[names(old) %in% relations]
  if (db_declares_foreign_keys(con)) {
    for (t in names(old)) {
      DBI::dbExecute(con, sprintf("ALTER TABLE %s RENAME TO %s", n(t), n(old[[t]])))
    }
  } else {
    db_upgrade_keyless_tables(con, old)
  }
  slots <- db_upgrade_slots(con, old)
  for (statement in db_layout_tables_sql(con, max(1L, slots$slot))) {
    DBI::dbExecute(con, statement)
  }
  types <- vctrs::vec_unique(slots[c("type", "unit")])
  types$type_id <- seq_len(nrow(types))
  pair <- c("type", "unit")
  slots$type_id <- types$type_id[vctrs::vec_match(slots[pair], types[pair])]
  db_insert_rows(con, p$types, types[c("type_id", "type", "unit")])
  db_insert_rows(con, p$slots, slots[c("source_id", "slot", "type_id")])
  stacks <- db_upgrade_stacks(con, old)
  db_upgrade_samples(con, old, max(1L, slots$slot), stacks)
  if ("sample_labels" %in% names(old)) {
    # the old table's index keeps its name
    DBI::dbExecute(con, sprintf("DROP INDEX IF EXISTS %s", n("sample_labels_sample_id")))
    db_remake_table(con, "sample_labels", old[["sample_labels"]])
  }
  cascade <- if (db_dialect(con) == "postgres") " CASCADE" else ""
  for (t in rev(old)) {
    DBI::dbExecute(con, paste0("DROP TABLE ", n(t), cascade))
  }
  db_create_missing_tables(con)
  for (statement in db_views_sql(con, db_columns(con, p$samples))) {
    DBI::dbExecute(con, statement)
  }
  db_insert_rows(con, p$info, data.frame(key = "layout", value = db_layout_version))
}

# Where the package's tables declare no foreign keys (DuckDB, see
# db_declares_foreign_keys()), the 2.1 tables are made again without them:
# DuckDB renames no table that a key refers to, and would refuse a later
# delete. The per-sample tables are copied to the names the upgrade reads
# them from (`old`); the others are copied, dropped, made again and filled
# from their copies (the columns both have).
db_upgrade_keyless_tables <- function(con, old) {
  n <- function(x) sql_name(con, x)
  copy <- function(from, to) {
    DBI::dbExecute(con, sprintf("CREATE TABLE %s AS SELECT * FROM %s", n(to), n(from)))
  }
  tables <- intersect(db_table_order(), db_relations(con)$name)
  kept <- setdiff(tables, names(old))
  copies <- paste0("profile_v21_copy_", kept)
  for (t in names(old)) copy(t, old[[t]])
  for (i in seq_along(kept)) copy(kept[[i]], copies[[i]])
  # the tables that refer to others first
  for (t in rev(tables)) DBI::dbExecute(con, paste("DROP TABLE", n(t)))
  for (i in seq_along(kept)) {
    db_remake_table(con, kept[[i]], copies[[i]])
    DBI::dbExecute(con, paste("DROP TABLE", n(copies[[i]])))
  }
}

# Creates table `t` of the format (db_create_table_sql()) and fills it with
# the rows of the table `from`, in the columns both have.
db_remake_table <- function(con, t, from) {
  n <- function(x) sql_name(con, x)
  for (statement in db_create_table_sql(con, t)) DBI::dbExecute(con, statement)
  columns <- paste(n(intersect(db_columns(con, t), db_columns(con, from))), collapse = ", ")
  DBI::dbExecute(con, sprintf(
    "INSERT INTO %s (%s) SELECT %s FROM %s", n(t), columns, columns, n(from)
  ))
}

# The value slots of each source (`source_id`, `slot`, `type`, `unit`): its
# types in the order of its first sample that has them, then by name.
db_upgrade_slots <- function(con, old) {
  n <- function(x) sql_name(con, x)
  pairs <- DBI::dbGetQuery(con, sprintf(paste(
    'SELECT "s"."source_id" AS "source_id",',
    '"v"."type" AS "type", "v"."unit" AS "unit",',
    'MIN("v"."sample_id") AS "first_sample" FROM %s AS "v" INNER JOIN %s AS "s"',
    'ON "s"."sample_id" = "v"."sample_id"',
    'GROUP BY "s"."source_id", "v"."type", "v"."unit"'
  ), n(old[["sample_values"]]), n(old[["samples"]])))
  pairs$source_id <- as_column_type(pairs$source_id, "integer")
  first <- as.double(pairs$first_sample)
  o <- order(pairs$source_id, first, pairs$type, pairs$unit, method = "radix")
  pairs <- pairs[o, , drop = FALSE]
  pairs$slot <- as.integer(stats::ave(seq_len(nrow(pairs)), pairs$source_id, FUN = seq_along))
  data.frame(source_id = pairs$source_id, slot = pairs$slot, type = pairs$type, unit = pairs$unit)
}

# Fills profile_stacks and profile_stack_frames with the distinct stacks of
# the old sample_locations (found by grouping the samples' frames as text in
# the database); returns the name of a temporary table of each sample's
# stack as text (`sample_id`, `frames`).
db_upgrade_stacks <- function(con, old) {
  p <- db_physical
  n <- function(x) sql_name(con, x)
  locations <- list(con = con, sql = paste("SELECT * FROM", n(old[["sample_locations"]])))
  class(locations) <- "profile_db_table"
  per_sample <- "profile_upgrade_stacks"
  DBI::dbExecute(con, sprintf(
    "CREATE TEMPORARY TABLE %s AS %s", n(per_sample),
    db_concatenated(locations, "frames", 'CAST("location_id" AS TEXT)', '"depth"')
  ))
  distinct <- DBI::dbGetQuery(con, sprintf(paste(
    "SELECT COALESCE(\"t\".\"frames\", '') AS \"frames\",",
    'MIN("s"."sample_id") AS "first_sample"',
    'FROM %s AS "s" LEFT JOIN %s AS "t" ON "t"."sample_id" = "s"."sample_id"',
    "GROUP BY COALESCE(\"t\".\"frames\", '')"
  ), n(old[["samples"]]), n(per_sample)))
  distinct <- distinct[order(as.double(distinct$first_sample)), , drop = FALSE]
  text <- distinct$frames
  entries <- strsplit(text, ",", fixed = TRUE)
  stack_id <- seq_along(text)
  db_insert_rows(con, p$stacks, data.frame(
    stack_id = stack_id, frames = text, n_frames = lengths(entries)
  ))
  db_insert_rows(con, p$frames, data.frame(
    stack_id = rep(stack_id, lengths(entries)), depth = sequence(lengths(entries)),
    location_id = as.integer(unlist(entries, use.names = FALSE))
  ))
  per_sample
}

# Fills profile_samples from the old samples, their stacks (by their text)
# and their values pivoted into the slots.
db_upgrade_samples <- function(con, old, n_slots, stacks) {
  p <- db_physical
  n <- function(x) sql_name(con, x)
  columns <- intersect(db_columns(con, old[["samples"]]), v2_schema()$columns$samples$name)
  slots <- db_slot_names(n_slots)
  pivot <- paste(sprintf(
    'MAX(CASE WHEN "l"."slot" = %d THEN "v"."value" END) AS %s', seq_len(n_slots), n(slots)
  ), collapse = ", ")
  DBI::dbExecute(con, sprintf(
    paste(
      'INSERT INTO %s (%s, "stack_id", %s)',
      'SELECT %s, "k"."stack_id", %s FROM %s AS "s"',
      'LEFT JOIN %s AS "t" ON "t"."sample_id" = "s"."sample_id"',
      "INNER JOIN %s AS \"k\" ON \"k\".\"frames\" = COALESCE(\"t\".\"frames\", '')",
      'LEFT JOIN (SELECT "v"."sample_id" AS "sample_id", %s FROM %s AS "v"',
      'INNER JOIN %s AS "w" ON "w"."sample_id" = "v"."sample_id"',
      'INNER JOIN (SELECT "o"."source_id", "o"."slot", "y"."type", "y"."unit"',
      'FROM %s AS "o"',
      'INNER JOIN %s AS "y" ON "y"."type_id" = "o"."type_id") AS "l"',
      'ON "l"."source_id" = "w"."source_id"',
      'AND "l"."type" = "v"."type" AND "l"."unit" = "v"."unit"',
      'GROUP BY "v"."sample_id") AS "q" ON "q"."sample_id" = "s"."sample_id"'
    ),
    n(p$samples), paste(n(columns), collapse = ", "), paste(n(slots), collapse = ", "),
    paste0('"s".', n(columns), collapse = ", "), paste0('"q".', n(slots), collapse = ", "),
    n(old[["samples"]]), n(stacks), n(p$stacks), pivot, n(old[["sample_values"]]),
    n(old[["samples"]]),
    n(p$slots), n(p$types)
  ))
  DBI::dbExecute(con, paste("DROP TABLE", n(stacks)))
  sums <- paste(sprintf("SUM(%s)", n(slots)), collapse = ", ")
  DBI::dbExecute(con, sprintf(
    paste(
      'INSERT INTO %s ("source_id", "stack_id", "n_samples", %s)',
      'SELECT "source_id", "stack_id", COUNT(*), %s FROM %s GROUP BY "source_id", "stack_id"'
    ),
    n(p$source_stacks), paste(n(slots), collapse = ", "), sums, n(p$samples)
  ))
}

# Creates, empty, the tables of the format that the database lacks: those
# that 2.1 did not have (source_lines, those of OpenTelemetry profiles).
db_create_missing_tables <- function(con) {
  present <- db_relations(con)$name
  for (t in setdiff(db_table_order(), c(db_view_tables, present))) {
    for (statement in db_create_table_sql(con, t)) DBI::dbExecute(con, statement)
  }
}
