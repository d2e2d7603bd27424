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
#' What the database shows is the v2 format (see [profile_v2]), with the same
#' names and columns, in the default schema of the connection: `meta`,
#' `sources`, `locations`, `functions` and the extension tables
#' (`sample_types`, `sample_labels`, `mappings`, `source_comments`) are
#' tables, each with every column the format knows, their primary and
#' foreign keys and the unique pairs of the format; `samples`,
#' `sample_values` and `sample_locations` are views, so that any query of
#' them (dplyr, dm, SQL) sees the per-sample tables of the format. DuckDB
#' checks a foreign key at each statement against the rows as they were
#' before it, and would refuse a delete of runs in one transaction: there the
#' tables are made without their foreign keys, which the dm of
#' [profile_db()] declares and [validate_profile()] checks all the same (and
#' [profile_db_upgrade()] makes a 2.1 database's tables again without them).
#'
#' # Layout
#'
#' Under the views, each distinct stack is stored once, as fleets of
#' profilers (and the OpenTelemetry and Firefox profile formats) do:
#'
#' - `profile_stacks` has one row per distinct stack (`stack_id`, its
#'   location ids innermost first as text in `frames`, unique, and
#'   `n_frames`), and `profile_stack_frames` its frames (`stack_id`,
#'   `depth`, `location_id`);
#' - `profile_samples` has one row per sample: the columns of `samples`, its
#'   `stack_id`, and its values in the columns `value_1`, `value_2`, ...: a
#'   *slot* per sample type of its source, NULL where the sample has no value
#'   of that type; `profile_value_slots` says which type each slot of a
#'   source holds (`source_id`, `slot`, `type_id`) and `profile_value_types`
#'   names the types (`type_id`, `type`, `unit`);
#' - `profile_source_stacks` has, per source and stack, the number of samples
#'   and the sums of each slot, written by the append that adds the samples:
#'   summaries of whole sources (the whole database, or sources chosen with
#'   [dm::dm_filter()]) add up these rows, not every sample;
#' - `profile_db_info` holds the layout's version (`key` "layout", value
#'   "2.2").
#'
#' A sample costs one row of a few numbers, whatever the depth of its stack
#' and the number of its sample types; a stack costs its frames once. A
#' database written by profile 2.1, which stored each sample's stack and
#' values as rows of `sample_locations` and `sample_values`, is read as it is
#' (by `profile_db()` and every function that takes its profile);
#' `profile_db_append()` refuses it, changing nothing, until
#' [profile_db_upgrade()] has upgraded it in place. Runs are removed by
#' [profile_db_delete()].
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
#' - the stacks of the samples are looked up among those stored (by their
#'   frames, in the database: only the stacks of this append are queried),
#'   and the stacks new to the database are added;
#' - a difference of profiles ([profile_diff()], whose base's values are
#'   negated) is refused: added to the runs of a database it would subtract
#'   the base from every total. Append the two profiles and take their
#'   difference from the database (see `vignette("profile-database")`).
#'
#' All of it happens in one transaction: an append that fails or is
#' interrupted (an invalid profile, a lost connection, a database error, an
#' interrupt) leaves the database as it was. Many writers may append at once:
#' appends, deletes and upgrades wait for each other (PostgreSQL: a
#' transaction-level advisory lock; SQLite: the write lock, taken when the
#' transaction starts, waiting up to 10 minutes for another writer; other
#' databases: a row lock on `profile_db_info`), so ids stay unique and no
#' append fails because another one runs. The lock is held by the
#' transaction alone: readers are never blocked.
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
#' Summaries, flame graphs, [write_folded()], [write_pprof()] and validation
#' read the layout's tables: values are added up per stack id in the
#' database, and only the distinct stacks come back to R. A `dm` narrowed
#' with [dm::dm_filter()] is summarised as narrowed: by sources (their sums
#' per stack), by samples (the samples' rows), or, where the per-sample
#' tables themselves were filtered row by row, through the views.
#'
#' The SQL is plain SQL written by the package, and uses only DBI generics
#' that every driver has (or falls back where one lacks them): it is tested
#' on SQLite (RSQLite), PostgreSQL (RPostgres and RPostgreSQL) and DuckDB
#' (where the duckdb package is installed). A profile copied with
#' [dm::copy_dm_to()] or opened with [dm::dm_from_con()] is taken as well
#' (its tables need not have keys in the database), and summarised through
#' its tables with the SQL of profile 2.1.
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
#' @seealso [profile_db_delete()], [profile_db_upgrade()],
#'   `vignette("profile-database")`.
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
    check_db_layout(con)
    inputs <- lapply(list(x, ...), local_profile)
    profile <- do.call(combine_profiles_impl, c(inputs, list(merge = merge)))
    check_not_diff(profile)
    tables <- dm::dm_get_tables(profile, keyed = FALSE)
    prepared <- db_prepared_rows(tables)
    busy <- db_sqlite_busy(con)
    on.exit(busy())
    db_transaction(con, {
      db_lock(con, db_physical$info)
      # checked again under the lock: another writer may have created the
      # tables in the meantime
      layout <- check_db_layout(con)
      if (layout == "none") {
        db_create_layout(con, n_slots = max(1L, prepared$n_slots))
      }
      db_add_columns(con, tables, prepared$n_slots)
      db_insert_profile(con, tables, prepared, merge = merge)
    })
    profile_db(con)
  })
}

# A difference of two profiles (profile_diff()) has the base's values negated:
# added to a database of runs, it would subtract the base from every total.
check_not_diff <- function(profile, call = rlang::caller_env()) {
  base <- dm::dm_get_tables(profile, keyed = FALSE)$sources[["diff_base"]]
  if (!is.null(base) && any(!is.na(base))) {
    abort_argument(c(
      "Can't append a difference of profiles (made by {.fn profile_diff}) to a database of runs.",
      i = "Append the two profiles, and take their difference from the database."
    ), call = call)
  }
}

# ---------------------------------------------------------------------------
# Rows

# Appends the tables of a combined profile (ids 1..n in every table) after the
# rows of the database, with new ids (see "Appending" in ?profile_db_append).
db_insert_profile <- function(con, tables, prepared, merge) {
  largest <- function(t, col) {
    found <- DBI::dbGetQuery(con, sprintf(
      "SELECT MAX(%s) AS %s FROM %s", sql_name(con, col), sql_name(con, "largest"), sql_name(con, t)
    ))
    db_number(found$largest)
  }
  after <- function(t, col) {
    offset <- largest(t, col)
    function(id) as.integer(id + offset)
  }
  new_ids <- list(
    sources = after("sources", "source_id"),
    samples = after(db_physical$samples, "sample_id"),
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
  layout_rows <- db_layout_rows(con, tables, prepared, new_ids, locations$ids)
  per_sample <- c(db_view_tables, "sample_labels")
  for (t in c(setdiff(db_table_order(), per_sample), names(layout_rows), "sample_labels")) {
    rows <- if (t %in% names(layout_rows)) layout_rows[[t]] else tables[[t]]
    if (!is.null(rows) && nrow(rows)) {
      db_insert_rows(con, t, rows)
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

# ---------------------------------------------------------------------------
# The rows of the layout's own tables (R/db-layout.R) that an append adds:
# stacks found or added by their frames, value types and slots, the samples
# with their stack ids and values, and the per-source, per-stack sums.

# What an append computes before it starts its transaction: the distinct
# stacks of the combined profile (`frames`, location ids of the combined
# profile, concatenated; `lengths`), the stack of each sample (`stack`, in
# the order of `samples`), each source's value slots (`slots`: `source_id`,
# `slot`, `type`, `unit`; numbered by first appearance in the source's
# samples) and the values in them (`values`, a matrix of a row per sample and
# a column per slot, NA where a sample has no value of the slot's type).
db_prepared_rows <- function(tables) {
  samples <- tables$samples
  n <- nrow(samples)
  frames <- tables$sample_locations
  frames <- frames[order(frames$sample_id, frames$depth, method = "radix"), , drop = FALSE]
  row <- match(frames$sample_id, samples$sample_id)
  per_sample <- split(frames$location_id, factor(row, levels = seq_len(n)))
  signature <- vapply(per_sample, paste, character(1), collapse = ",", USE.NAMES = FALSE)
  stack <- vctrs::vec_group_id(signature)
  first <- !duplicated(stack)
  distinct <- per_sample[first][order(stack[first])]

  values <- tables$sample_values
  value_row <- match(values$sample_id, samples$sample_id)
  source_id <- samples$source_id[value_row]
  keys <- data.frame(source_id = source_id, type = values$type, unit = values$unit)
  pair <- vctrs::vec_group_id(keys)
  heads <- !duplicated(pair)
  slots <- keys[heads, , drop = FALSE]
  slots <- slots[order(pair[heads]), , drop = FALSE]
  slots$slot <- stats::ave(seq_len(nrow(slots)), slots$source_id, FUN = seq_along)
  n_slots <- if (nrow(slots)) max(slots$slot) else 0L
  matrix <- matrix(NA_real_, n, n_slots)
  matrix[cbind(value_row, slots$slot[pair])] <- values$value
  list(
    frames = unlist(distinct, use.names = FALSE), lengths = lengths(distinct),
    stack = as.integer(stack), slots = slots, values = matrix, n_slots = as.integer(n_slots)
  )
}

# The rows of the layout's tables for an append: the value types and slots
# new to the database, the stacks new to it (found by their frames) and the
# samples with their stack ids and values.
db_layout_rows <- function(con, tables, prepared, new_ids, location_ids) {
  p <- db_physical
  # value types: each (type, unit) once
  types <- as_schema_types(DBI::dbReadTable(con, p$types), "sample_values")
  types$type_id <- as_column_type(types$type_id, "integer")
  slots <- prepared$slots
  found <- vctrs::vec_match(slots[c("type", "unit")], types[c("type", "unit")])
  new_types <- vctrs::vec_unique(slots[is.na(found), c("type", "unit"), drop = FALSE])
  new_types$type_id <- as.integer(max(c(0, types$type_id)) + seq_len(nrow(new_types)))
  types <- rbind(types[c("type_id", "type", "unit")], new_types[c("type_id", "type", "unit")])
  slot_rows <- data.frame(
    source_id = new_ids$sources(slots$source_id), slot = as.integer(slots$slot),
    type_id = types$type_id[vctrs::vec_match(slots[c("type", "unit")], types[c("type", "unit")])]
  )
  stacks <- db_stack_ids(con, prepared, location_ids)
  samples <- tables$samples
  samples$stack_id <- stacks$ids[prepared$stack]
  if (prepared$n_slots) {
    values <- as.data.frame(prepared$values)
    names(values) <- db_slot_names(prepared$n_slots)
    samples <- cbind(as.data.frame(samples), values)
  }
  rows <- list(
    types = new_types[c("type_id", "type", "unit")], slots = slot_rows,
    stacks = stacks$new_stacks, frames = stacks$new_frames, samples = samples,
    source_stacks = db_source_stack_rows(samples, prepared$n_slots)
  )
  names(rows) <- unlist(p[names(rows)])
  rows
}

# The rows of profile_source_stacks of the rows of profile_samples `samples`:
# per source and stack, the number of samples and the sums of each slot (NA
# where none of them has a value in it).
db_source_stack_rows <- function(samples, n_slots) {
  key <- data.frame(source_id = samples$source_id, stack_id = samples$stack_id)
  group <- vctrs::vec_group_id(key)
  out <- key[!duplicated(group), , drop = FALSE]
  out <- out[order(unique(group)), , drop = FALSE]
  out$n_samples <- tabulate(group, nbins = nrow(out))
  for (name in db_slot_names(n_slots)) {
    v <- samples[[name]]
    sums <- rowsum(ifelse(is.na(v), 0, v), group, reorder = TRUE)[, 1L]
    any_value <- rowsum(as.integer(!is.na(v)), group, reorder = TRUE)[, 1L] > 0
    out[[name]] <- ifelse(any_value, unname(sums), NA_real_)
  }
  rownames(out) <- NULL
  out
}

# The database's id of each distinct stack of an append (`ids`) and the rows
# of the stacks new to it: stacks are looked up by their frames (the
# database's location ids, innermost first, as text), a batch at a time.
db_stack_ids <- function(con, prepared, location_ids) {
  frames <- location_ids[prepared$frames]
  stack_of_frame <- rep(seq_along(prepared$lengths), prepared$lengths)
  text <- vapply(split(frames, factor(stack_of_frame, levels = seq_along(prepared$lengths))),
    paste, character(1),
    collapse = ",", USE.NAMES = FALSE
  )
  ids <- rep(NA_integer_, length(text))
  batch <- cumsum(nchar(text) + 4) %/% 2e5
  for (b in split(seq_along(text), batch)) {
    stored <- DBI::dbGetQuery(con, sprintf(
      'SELECT "stack_id", "frames" FROM %s WHERE "frames" IN (%s)',
      sql_name(con, db_physical$stacks), paste(sql_string(con, text[b]), collapse = ", ")
    ))
    ids[b] <- as_column_type(stored$stack_id, "integer")[match(text[b], stored$frames)]
  }
  new <- which(is.na(ids))
  largest <- DBI::dbGetQuery(con, sprintf(
    'SELECT MAX("stack_id") AS "largest" FROM %s', sql_name(con, db_physical$stacks)
  ))
  ids[new] <- as.integer(db_number(largest$largest) + seq_along(new))
  in_new <- stack_of_frame %in% new
  depth <- sequence(prepared$lengths)
  list(
    ids = ids,
    new_stacks = data.frame(
      stack_id = ids[new], frames = text[new], n_frames = as.integer(prepared$lengths[new])
    ),
    new_frames = data.frame(
      stack_id = ids[stack_of_frame[in_new]], depth = as.integer(depth[in_new]),
      location_id = as.integer(frames[in_new])
    )
  )
}
