#' A database of profiles
#'
#' @description
#' `profile_db_append()` adds profiles to the profile tables of a database (any
#' [DBI][DBI::DBI] connection: SQLite, DuckDB, PostgreSQL, ...), creating the
#' tables on first use, and returns the database's profile. `profile_db()`
#' returns the profile of a database that has the tables already, for example
#' after connecting again.
#'
#' Profiles of many runs, machines and days go into one database, and each run
#' stays findable by its rows in `sources` (`source_uri`, `source_timestamp`,
#' and any extension column such as `time_nanos`). The profile returned is a
#' `dm` whose tables are in the database: [profile_summary()],
#' [validate_profile()], [profile_flamegraph()], [write_folded()],
#' [write_pprof()] and [write_rprof()] take it as they take a profile in
#' memory, and [dm::dm_filter()] narrows it to some sources (see the
#' examples).
#'
#' @details
#' # Tables
#'
#' The tables are those of the v2 format (see [profile_v2]), with the same
#' names and columns, in the default schema of the connection: the seven
#' required tables and the extension tables (`sample_types`, `sample_labels`,
#' `mappings`, `source_comments`), each with every column the format knows.
#' They are created with their primary keys, their foreign keys (as the `dm`
#' keys of a profile in memory, plus `locations.inlined_into` and
#' `mappings.source_id`), the unique pairs of the format (`sample_id` and
#' `type` in `sample_values`, `sample_id` and `depth` in `sample_locations`,
#' `source_id` and `type` in `sample_types`) and an index on
#' `samples.source_id` and `sample_labels.sample_id`, so that what one source
#' or sample owns is found without reading the whole table. A table that is
#' there already (made by an earlier version of this package, or by
#' [dm::copy_dm_to()]) is used as it is; a column of the format it lacks is
#' added (`ALTER TABLE ... ADD COLUMN`, without constraints), and a table it
#' lacks is created.
#'
#' # Appending
#'
#' The profiles given are combined as [combine_profiles()] combines them
#' (which validates each one; v1 objects are converted, a database-backed
#' profile is collected into memory first), then added after the rows that are
#' there:
#'
#' - sources, samples and mappings get ids after the largest id of their
#'   table, in the order of the combined profile;
#' - with `merge = TRUE` (the default), a function equal to one in the database
#'   (same `name`, `system_name`, `filename` and `start_line`) gets that
#'   function's id, and so does a location equal to one in the database (same
#'   function, line and every other column, including the location it is
#'   inlined into); the others get new ids, in order. So the functions and
#'   locations of the database grow with the code profiled, not with the
#'   number of runs, and a database filled by appending profiles one at a time
#'   holds the same tables as [combine_profiles()] of all of them. With
#'   `merge = FALSE` every append adds its own functions and locations.
#'   Summaries are the same either way;
#' - `meta` keeps its first value of each key; a later profile with another
#'   value for a key adds it under `<key>@<id>`, where `<id>` is the
#'   `source_id` of the first source of that append.
#'
#' All of it happens in one transaction ([DBI::dbWithTransaction()]): an append
#' that fails or is interrupted (an invalid profile, a lost connection, a
#' database error, an interrupt) leaves the database as it was. Appends from
#' several connections at once are serialised by the database; where it cannot
#' (SQLite's lock is taken when writing starts), one of them fails with the
#' database's error and changes nothing.
#'
#' # What runs where
#'
#' [validate_profile()] and [profile_summary()] on a database-backed profile
#' run as SQL in the database: the per-sample tables (`samples`,
#' `sample_values`, `sample_locations`, `sample_labels`) are never read into R;
#' the other tables, whose size depends on the code profiled and the number of
#' runs, are. Validation reports an offending row of a per-sample table by its
#' `sample_id` (a table in a database has no row order). Flame graphs and
#' [write_folded()] read the distinct stacks of one sample type with their
#' summed values. The writers read the profile aggregated: one sample per
#' distinct source, stack and label set, with the values of its samples added
#' up; gauges (the heap sizes of Rprof memory profiling, which cannot be added
#' up) are left out, and so is the order and time of the samples. The verbs
#' (such as [profile_focus()]) and [combine_profiles()] read the whole profile
#' into memory; filter it with [dm::dm_filter()] first to read a part.
#'
#' The SQL is plain SQL written by the package over the queries of the `dm`'s
#' tables (so a `dm` filtered with [dm::dm_filter()] is summarised as
#' filtered), and runs on SQLite and PostgreSQL (the package is tested on both)
#' and on DuckDB (tested where the duckdb package is installed); grouping
#' stacks uses `group_concat()` in SQLite and `string_agg()` elsewhere. A
#' profile copied with [dm::copy_dm_to()] or opened with [dm::dm_from_con()]
#' is taken as well (its tables need not have keys in the database).
#'
#' @param con A DBI connection ([DBI::dbConnect()]).
#' @param x,... Profiles: v2 profiles (`dm` objects, in memory or in a
#'   database), or v1 `profile_data` objects. All of them are appended in the
#'   same transaction, in order.
#' @param merge `TRUE` (default) to give functions and locations equal to those
#'   in the database their ids, `FALSE` to add new rows for every profile (see
#'   "Appending").
#' @return A v2 profile (a `dm`, see [profile_v2]) whose tables are the
#'   tables of the database, with their keys set. A profile that is not valid
#'   gives an error of class `profile_error_invalid`, a database that refuses
#'   the rows one of class `profile_error_io` whose parent is the database's
#'   error (see [profile_error]).
#' @export
#' @examplesIf rlang::is_installed(c("RSQLite", "dbplyr"))
#' con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
#' files <- system.file("samples/rprof", c("1.out", "gc.out", "line.out"), package = "profile")
#' for (f in files) db <- profile_db_append(con, read_rprof(f))
#' db
#'
#' # Summaries run in the database
#' profile_summary(db, n = 5)
#'
#' # Every run is a source; one of them, through the keys of the dm
#' dplyr::collect(db$sources)[c("source_id", "source_uri")]
#' one_run <- dm::dm_filter(db, sources = source_id == 2L)
#' profile_summary(one_run, n = 3)
#'
#' # Connected again later: the same profile
#' db <- profile_db(con)
#' validate_profile(db)
#' DBI::dbDisconnect(con)
profile_db_append <- function(con, x, ..., merge = TRUE) {
  with_profile_errors("io", "Can't append the profiles to the database; it is unchanged.", {
    check_db_connection(con)
    if (!rlang::is_bool(merge)) {
      abort_argument("{.arg merge} must be {.code TRUE} or {.code FALSE}.")
    }
    inputs <- lapply(list(x, ...), local_profile)
    profile <- do.call(combine_profiles_impl, c(inputs, list(merge = merge)))
    tables <- dm::dm_get_tables(profile, keyed = FALSE)
    completed <- FALSE
    DBI::dbWithTransaction(con, {
      db_create_tables(con, tables)
      db_insert_profile(con, tables, merge = merge)
      completed <- TRUE
    })
    # dbWithTransaction() rolls back on an interrupt and returns
    if (!completed) {
      abort_profile("io", "The append was interrupted; the database is unchanged.")
    }
    profile_db(con)
  })
}

#' @rdname profile_db_append
#' @export
profile_db <- function(con) {
  with_profile_errors("io", "Can't read the profile tables of the database.", {
    check_db_connection(con)
    schema <- v2_schema()
    has_table <- vapply(schema$tables, function(t) DBI::dbExistsTable(con, t), logical(1))
    present <- schema$tables[has_table]
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
    tables <- lapply(present, function(t) dplyr::tbl(con, t))
    names(tables) <- present
    keyed_dm(tables)
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
  if (!DBI::dbIsValid(con)) {
    abort_argument("{.arg con} is a connection that is closed.", call = call)
  }
}

# ---------------------------------------------------------------------------
# Tables

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

# Creates the tables of the format that the database lacks (with every column
# of the format) and adds the columns of `tables` that its tables lack.
db_create_tables <- function(con, tables) {
  for (t in db_table_order()) {
    if (!DBI::dbExistsTable(con, t)) {
      for (statement in db_create_table_sql(con, t)) {
        DBI::dbExecute(con, statement)
      }
      if (t == "meta") {
        DBI::dbAppendTable(con, "meta", data.frame(key = "version", value = "2.0"))
      }
    } else if (!is.null(tables[[t]])) {
      wanted <- tables[[t]]
      if (t %in% db_ordered_tables) {
        wanted$position <- rep(NA_integer_, nrow(wanted))
      }
      for (col in setdiff(names(wanted), DBI::dbListFields(con, t))) {
        DBI::dbExecute(con, sprintf(
          "ALTER TABLE %s ADD COLUMN %s %s",
          DBI::dbQuoteIdentifier(con, t), DBI::dbQuoteIdentifier(con, col),
          DBI::dbDataType(con, wanted[[col]])
        ))
      }
    }
  }
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
  constraints <- c(
    if (any(pk$table == t)) sprintf("PRIMARY KEY (%s)", q(pk$column[pk$table == t])),
    if (!is.null(db_unique_columns[[t]])) sprintf("UNIQUE (%s)", q(db_unique_columns[[t]])),
    vapply(which(fk$table == t), function(i) {
      sprintf(
        "FOREIGN KEY (%s) REFERENCES %s (%s)",
        q(fk$column[[i]]),
        q(fk$ref_table[[i]]),
        q(fk$ref_column[[i]])
      )
    }, character(1))
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
# Rows

# Appends the tables of a combined profile (ids 1..n in every table) after the
# rows of the database, with new ids (see "Appending" in ?profile_db_append).
db_insert_profile <- function(con, tables, merge) {
  largest <- function(t, col) {
    found <- DBI::dbGetQuery(con, sprintf(
      "SELECT MAX(%s) AS %s FROM %s",
      DBI::dbQuoteIdentifier(con, col),
      DBI::dbQuoteIdentifier(con, "largest"),
      DBI::dbQuoteIdentifier(con, t)
    ))
    db_number(found$largest)
  }
  after <- function(t, col) {
    offset <- largest(t, col)
    function(id) as.integer(id + offset)
  }
  new_ids <- list(
    sources = after("sources", "source_id"),
    samples = after("samples", "sample_id"),
    mappings = after("mappings", "mapping_id"),
    resources = after("resources", "resource_id"),
    scopes = after("scopes", "scope_id")
  )
  functions <- db_function_ids(con, tables$functions, merge)
  new_ids$functions <- function(id) functions$ids[id]
  tables$functions <- functions$new_rows
  # every id but those of locations, which depend on the others
  tables <- db_renumbered(tables, new_ids, skip = "functions")
  locations <- db_location_ids(con, tables$locations, merge)
  tables$locations <- locations$new_rows
  tables <- db_renumbered(
    tables, list(locations = function(id) locations$ids[id]),
    skip = "locations"
  )
  first_source <- new_ids$sources(1L)
  tables$meta <- db_new_meta(con, tables$meta, first_source)
  for (t in intersect(db_ordered_tables, names(tables))) {
    tables[[t]]$position <- as.integer(largest(t, "position") + seq_len(nrow(tables[[t]])))
  }
  for (t in db_table_order()) {
    if (!is.null(tables[[t]]) && nrow(tables[[t]])) {
      db_insert_rows(con, t, tables[[t]])
    }
  }
}

# The id columns of `tables` (primary and foreign keys) translated by the
# functions in `new_ids` (one per table whose ids change); the tables in
# `skip` are left as they are.
db_renumbered <- function(tables, new_ids, skip = character()) {
  schema <- v2_schema()
  pk <- schema$primary_keys
  fk <- schema$foreign_keys
  keys <- data.frame(
    table = c(pk$table, fk$table), column = c(pk$column, fk$column),
    refers_to = c(pk$table, fk$ref_table)
  )
  keys <- keys[keys$refers_to %in% names(new_ids) & !keys$table %in% skip, , drop = FALSE]
  for (i in seq_len(nrow(keys))) {
    df <- tables[[keys$table[[i]]]]
    col <- keys$column[[i]]
    if (!is.null(df) && !is.null(df[[col]])) {
      tables[[keys$table[[i]]]][[col]] <- new_ids[[keys$refers_to[[i]]]](df[[col]])
    }
  }
  tables
}

# The database's id of each function of `functions` (whose ids are 1..n), and
# the rows to insert: with `merge`, functions equal to one in the database take
# its id; the others get ids after the largest one.
db_function_ids <- function(con, functions, merge) {
  existing <- as_schema_types(DBI::dbReadTable(con, "functions"), "functions")
  match_on <- c("name", "system_name", "filename", "start_line")
  found <- if (merge && nrow(existing)) {
    vctrs::vec_match(functions[match_on], existing[match_on])
  } else {
    rep(NA_integer_, nrow(functions))
  }
  new <- is.na(found)
  ids <- integer(nrow(functions))
  ids[!new] <- existing$function_id[found[!new]]
  ids[new] <- as.integer(max(c(0, existing$function_id)) + seq_len(sum(new)))
  rows <- functions[new, , drop = FALSE]
  rows$function_id <- ids[new]
  list(ids = ids, new_rows = rows)
}

# As db_function_ids() for locations, whose function_id and mapping_id are
# already those of the database. A location's key includes the database id of
# the location it is inlined into, so the targets of `inlined_into` are
# resolved first; locations new to the database are numbered in row order.
db_location_ids <- function(con, locations, merge) {
  existing <- as_schema_types(DBI::dbReadTable(con, "locations"), "locations")
  match_on <- setdiff(intersect(names(locations), names(existing)), "location_id")
  n <- nrow(locations)
  # database id (positive) or, for a location new to the database, -row
  resolved <- rep(NA_integer_, n)
  target <- if (is.null(locations$inlined_into)) rep(NA_integer_, n) else locations$inlined_into
  while (anyNA(resolved)) {
    ready <- which(is.na(resolved) & (is.na(target) | !is.na(resolved[target])))
    if (!length(ready)) {
      abort_profile("invalid", "The locations' {.field inlined_into} form a cycle.")
    }
    keys <- locations[ready, match_on, drop = FALSE]
    if (!is.null(keys$inlined_into)) {
      keys$inlined_into <- resolved[keys$inlined_into]
    }
    found <- rep(NA_integer_, length(ready))
    if (merge && nrow(existing)) {
      found <- vctrs::vec_match(keys, existing[match_on])
    }
    resolved[ready] <- ifelse(is.na(found), -ready, existing$location_id[found])
  }
  new <- resolved < 0L
  ids <- resolved
  ids[new] <- as.integer(max(c(0, existing$location_id)) + seq_len(sum(new)))
  rows <- locations[new, , drop = FALSE]
  rows$location_id <- ids[new]
  if (!is.null(rows$inlined_into)) {
    rows$inlined_into <- ids[rows$inlined_into]
  }
  list(ids = ids, new_rows = rows)
}

# The meta rows to insert: keys the database lacks, and values that differ
# from the database's under `<key>@<first_source>` (the version row is there).
db_new_meta <- function(con, meta, first_source) {
  existing <- DBI::dbReadTable(con, "meta")
  keys <- existing$key
  values <- existing$value
  out_key <- character()
  out_value <- character()
  for (i in seq_len(nrow(meta))) {
    key <- meta$key[[i]]
    value <- meta$value[[i]]
    if (identical(key, "version")) next
    repeat {
      at <- match(key, keys)
      if (is.na(at)) {
        keys <- c(keys, key)
        values <- c(values, value)
        out_key <- c(out_key, key)
        out_value <- c(out_value, value)
        break
      }
      if (identical(values[[at]], value)) break
      key <- paste0(key, "@", first_source)
    }
  }
  tibble::tibble(key = out_key, value = out_value)
}

db_insert_rows <- function(con, table, rows) {
  DBI::dbAppendTable(con, table, as.data.frame(rows))
}
