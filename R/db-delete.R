#' Delete runs from a database of profiles
#'
#' `profile_db_delete()` removes sources (runs) from the profile tables of a
#' database made by [profile_db_append()]: their samples with their values,
#' stacks and labels, their sample types, comments, mappings and value slots,
#' the text of their source files (`source_lines`), their OpenTelemetry
#' attributes, and every stack, location, function,
#' sample type name, OpenTelemetry scope and resource that no other source
#' uses. It runs in one transaction: a delete that fails or is
#' interrupted leaves the database as it was. The sources that stay keep
#' their ids, and the database holds what appending them alone would have
#' stored.
#'
#' @param con A DBI connection to a database of profiles.
#' @param sources The sources to delete: their ids (a numeric vector), a data
#'   frame with a column `source_id`, or a profile (a `dm`) whose `sources`
#'   table lists them, such as the database's profile narrowed with
#'   [dm::dm_filter()] (see the examples).
#' @return The database's profile after the delete (as [profile_db()]),
#'   invisibly.
#' @seealso [profile_db_append()], [profile_db_upgrade()].
#' @export
#' @examplesIf rlang::is_installed(c("RSQLite", "dbplyr"))
#' con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
#' files <- system.file("samples/rprof", c("1.out", "gc.out", "line.out"), package = "profile")
#' for (f in files) db <- profile_db_append(con, read_rprof(f))
#'
#' # Runs older than a day, say: here the runs of one file, chosen by a filter
#' old <- dm::dm_filter(db, sources = source_uri == !!files[[1]])
#' db <- profile_db_delete(con, old)
#' dplyr::collect(db$sources)[c("source_id", "source_uri")]
#'
#' # or by id
#' db <- profile_db_delete(con, 2L)
#' profile_summary(db, n = 3)
#' DBI::dbDisconnect(con)
profile_db_delete <- function(con, sources) {
  with_profile_errors("io", "Can't delete from the database; it is unchanged.", {
    check_db_connection(con)
    ids <- db_source_ids(sources)
    layout <- check_db_layout(con)
    if (layout == "none") {
      abort_profile("invalid", "The database has no profile (see {.fn profile_db_append}).")
    }
    busy <- db_sqlite_busy(con)
    on.exit(busy())
    db_transaction(con, what = "delete", {
      db_lock(con, db_physical$info)
      db_delete_sources(con, ids)
    })
    invisible(profile_db(con))
  })
}

# The source ids given to profile_db_delete().
db_source_ids <- function(sources, call = rlang::caller_env()) {
  if (inherits(sources, "dm")) {
    table <- dm::dm_get_tables(sources, keyed = FALSE)$sources
    sources <- dplyr::collect(dplyr::select(table, "source_id"))
  }
  if (is.data.frame(sources)) {
    if (!"source_id" %in% names(sources)) {
      abort_argument("{.arg sources} must have a column {.field source_id}.", call = call)
    }
    sources <- sources$source_id
  }
  if (inherits(sources, "integer64")) {
    sources <- as.double(sources)
  }
  if (!is.numeric(sources) || anyNA(sources) || any(sources != trunc(sources))) {
    abort_argument(
      paste(
        "{.arg sources} must be source ids, a data frame of them or a profile,",
        "not {.obj_type_friendly {sources}}."
      ),
      sources = sources, call = call
    )
  }
  unique(as.integer(sources))
}

# Deletes the sources `ids` and what only they used (see ?profile_db_delete),
# children before parents.
db_delete_sources <- function(con, ids) {
  if (!length(ids)) {
    return(invisible())
  }
  p <- db_physical
  n <- function(x) sql_name(con, x)
  run <- function(template, ...) DBI::dbExecute(con, sql_fill(template, ...))
  ints <- function(x) as_column_type(x, "integer")
  in_list <- function(x) paste(x, collapse = ", ")
  for (batch in split(ids, ceiling(seq_along(ids) / 500))) {
    sources <- in_list(batch)
    stacks <- ints(DBI::dbGetQuery(con, sql_fill(
      'SELECT DISTINCT "stack_id" FROM {table} WHERE "source_id" IN ({sources})',
      table = n(p$source_stacks), sources = sources
    ))$stack_id)
    if ("sample_labels" %in% db_relations(con)$name) {
      run(
        paste(
          'DELETE FROM "sample_labels" WHERE "sample_id" IN',
          '(SELECT "sample_id" FROM {samples} WHERE "source_id" IN ({sources}))'
        ),
        samples = n(p$samples), sources = sources
      )
    }
    for (t in c(p$source_stacks, p$samples)) {
      run('DELETE FROM {table} WHERE "source_id" IN ({sources})', table = n(t), sources = sources)
    }
    db_delete_unused_stacks(con, stacks)
    run(
      'DELETE FROM {table} WHERE "source_id" IN ({sources})',
      table = n(p$slots), sources = sources
    )
    otlp <- intersect(v2_schema()$otlp_tables, db_relations(con)$name)
    db_delete_unused_locations(con, batch, otlp)
    db_delete_source_rows(con, sources, otlp)
    run('DELETE FROM "sources" WHERE "source_id" IN ({sources})', sources = sources)
    db_delete_unused_scopes(con, otlp)
  }
  run(
    'DELETE FROM {types} WHERE "type_id" NOT IN (SELECT "type_id" FROM {slots})',
    types = n(p$types), slots = n(p$slots)
  )
}

# The tables of the format (samples aside) whose rows belong to a source, by
# a foreign key `source_id` (sample types, mappings, comments, the text of
# source files, OpenTelemetry attributes), as the database has them.
db_source_tables <- function(con) {
  fk <- v2_schema()$foreign_keys
  owned <- fk$table[fk$ref_table == "sources" & fk$column == "source_id"]
  intersect(setdiff(owned, "samples"), db_relations(con)$name)
}

# Deletes the rows of the sources `sources` (ids as SQL text) in every table
# that db_source_tables() lists, the attributes of their mappings first
# (mappings last: locations refer to them; `otlp`: the OTLP tables the
# database has).
db_delete_source_rows <- function(con, sources, otlp) {
  tables <- db_source_tables(con)
  if ("mapping_attributes" %in% otlp) {
    DBI::dbExecute(con, sql_fill(
      paste(
        'DELETE FROM "mapping_attributes" WHERE "mapping_id" IN',
        '(SELECT "mapping_id" FROM "mappings" WHERE "source_id" IN ({sources}))'
      ),
      sources = sources
    ))
  }
  for (t in c(setdiff(tables, "mappings"), intersect(tables, "mappings"))) {
    DBI::dbExecute(con, sql_fill(
      'DELETE FROM {table} WHERE "source_id" IN ({sources})',
      table = sql_name(con, t), sources = sources
    ))
  }
}

# Deletes the stacks among `stacks` that no sample has any more.
db_delete_unused_stacks <- function(con, stacks) {
  p <- db_physical
  for (batch in split(stacks, ceiling(seq_along(stacks) / 2000))) {
    list <- paste(batch, collapse = ", ")
    kept <- DBI::dbGetQuery(con, sprintf(
      'SELECT DISTINCT "stack_id" FROM %s WHERE "stack_id" IN (%s)',
      sql_name(con, p$source_stacks), list
    ))$stack_id
    gone <- setdiff(batch, as_column_type(kept, "integer"))
    if (length(gone)) {
      for (t in c(p$frames, p$stacks)) {
        DBI::dbExecute(con, sprintf(
          'DELETE FROM %s WHERE "stack_id" IN (%s)',
          sql_name(con, t), paste(gone, collapse = ", ")
        ))
      }
    }
  }
}

# Deletes the locations no stored stack uses (directly or as the location a
# used one is inlined into) that were used by deleted stacks or belong to a
# mapping of the deleted sources `ids`, then the functions no location uses
# any more among theirs.
db_delete_unused_locations <- function(con, ids, otlp = character()) {
  locations <- as_schema_types(DBI::dbReadTable(con, "locations"), "locations")
  used <- as_column_type(DBI::dbGetQuery(con, sprintf(
    'SELECT DISTINCT "location_id" FROM %s', sql_name(con, db_physical$frames)
  ))$location_id, "integer")
  keep <- locations$location_id %in% used
  if (!is.null(locations$mapping_id)) {
    mappings <- DBI::dbGetQuery(con, sprintf(
      'SELECT "mapping_id" FROM "mappings" WHERE "source_id" NOT IN (%s)',
      paste(ids, collapse = ", ")
    ))$mapping_id
    # a location of a mapping of a source that stays, stays
    kept_mappings <- as_column_type(mappings, "integer")
    keep <- keep | (!is.na(locations$mapping_id) & locations$mapping_id %in% kept_mappings)
  }
  if (!is.null(locations$inlined_into)) {
    repeat {
      targets <- locations$inlined_into[keep]
      more <- !keep & locations$location_id %in% targets
      if (!any(more)) break
      keep <- keep | more
    }
  }
  gone <- locations$location_id[!keep]
  for (batch in split(gone, ceiling(seq_along(gone) / 2000))) {
    for (t in intersect("location_attributes", otlp)) {
      DBI::dbExecute(con, sprintf(
        'DELETE FROM "%s" WHERE "location_id" IN (%s)', t, paste(batch, collapse = ", ")
      ))
    }
    DBI::dbExecute(con, sprintf(
      'DELETE FROM "locations" WHERE "location_id" IN (%s)', paste(batch, collapse = ", ")
    ))
  }
  functions <- setdiff(locations$function_id[!keep], locations$function_id[keep])
  functions <- functions[!is.na(functions)]
  for (batch in split(functions, ceiling(seq_along(functions) / 2000))) {
    DBI::dbExecute(con, sprintf(
      'DELETE FROM "functions" WHERE "function_id" IN (%s)', paste(batch, collapse = ", ")
    ))
  }
}

# Deletes the OpenTelemetry scopes no source uses any more, then the resources
# no scope uses, each with its attributes (`otlp`: the OTLP tables the
# database has).
db_delete_unused_scopes <- function(con, otlp) {
  if (!"scopes" %in% otlp) {
    return(invisible())
  }
  unused_scopes <- paste(
    '"scope_id" NOT IN (SELECT "scope_id" FROM "sources" WHERE "scope_id" IS NOT NULL)'
  )
  if ("scope_attributes" %in% otlp) {
    DBI::dbExecute(con, paste('DELETE FROM "scope_attributes" WHERE', unused_scopes))
  }
  DBI::dbExecute(con, paste('DELETE FROM "scopes" WHERE', unused_scopes))
  if ("resources" %in% otlp) {
    unused_resources <- paste(
      '"resource_id" NOT IN',
      '(SELECT "resource_id" FROM "scopes" WHERE "resource_id" IS NOT NULL)'
    )
    if ("resource_attributes" %in% otlp) {
      DBI::dbExecute(con, paste('DELETE FROM "resource_attributes" WHERE', unused_resources))
    }
    DBI::dbExecute(con, paste('DELETE FROM "resources" WHERE', unused_resources))
  }
  invisible()
}
