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
# - writers: profile_for_writing() collects the profile aggregated by source,
#   stack and labels;
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
  length(tables) > 0L && is_lazy_table(tables[[1L]])
}

is_lazy_table <- function(x) {
  inherits(x, "tbl_lazy")
}

# The profile in memory: the whole of it (what verbs and combining need).
local_profile <- function(x) {
  if (!is_db_profile(x)) {
    return(x)
  }
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  local <- lapply(names(tables), function(t) as_schema_types(dplyr::collect(tables[[t]]), t))
  names(local) <- names(tables)
  dm_from_v2_tables(local)
}

# ---------------------------------------------------------------------------
# Reading the tables

# The tables of a database-backed profile, after the checks check_v2_tables()
# makes: `local` has the small tables collected and the per-sample tables with
# no rows (their columns and types), `lazy` every table as a lazy table.
db_profile_tables <- function(x, call = rlang::caller_env()) {
  lazy <- dm::dm_get_tables(x, keyed = FALSE)
  local <- lapply(names(lazy), function(t) {
    rows <- if (t %in% per_sample_tables) utils::head(lazy[[t]], 0L) else lazy[[t]]
    as_schema_types(dplyr::collect(rows), t)
  })
  names(local) <- names(lazy)
  list(local = check_v2_table_list(local, call = call), lazy = lazy)
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
  v <- as.double(if (inherits(v, "integer64")) as.character(v) else v)
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
  db_check_per_sample_rows(tables$lazy, call = call)
  invisible(x)
}

# The rules of the format for the rows of the per-sample tables, as SQL, in
# the order the Rust validator checks them (src/rust/core/src/validate.rs):
# NA, positive and non-negative values, primary keys, foreign keys, unique
# (sample, type) values, stack depths 1..n. Tables have no row order in a
# database, so an offending row is named by its sample_id, not its position.
db_check_per_sample_rows <- function(lazy, call) {
  fail <- function(table, column, sample_id, message) {
    abort_profile("invalid", "Invalid v2 profile.", call = call, detail = sprintf(
      "table `%s`, column `%s`, a row with sample_id %s: %s",
      table, column, format_id(sample_id), message
    ))
  }
  present <- intersect(names(lazy), per_sample_tables)
  db_check_column_rules(lazy, present, fail)
  db_check_keys(lazy, present, fail)
  if ("sample_values" %in% present) {
    db_check_unique_types(lazy$sample_values, fail)
  }
  if ("sample_locations" %in% present) {
    db_check_depths(lazy$sample_locations, fail)
  }
}

format_id <- function(id) {
  if (length(id) == 0L || is.na(id)) "NA" else format(as.double(id), scientific = FALSE)
}

# NA, positive ids, non-negative lines: one pass over each table tells which
# rules some row breaks; the first of them in the validator's order is
# reported with a row that breaks it.
db_check_column_rules <- function(lazy, present, fail) {
  schema <- v2_schema()
  rules <- list(
    not_na = list(
      breaks = function(col) rlang::expr(is.na(.data[[!!col]])),
      message = function(value) "must not be NA"
    ),
    positive = list(
      breaks = function(col) rlang::expr(.data[[!!col]] <= 0L),
      message = function(value) paste("must be a positive id, found", format_id(value))
    ),
    non_negative = list(
      breaks = function(col) rlang::expr(.data[[!!col]] < 0L),
      message = function(value) paste("must be zero (unknown) or positive, found", format_id(value))
    )
  )
  checks <- do.call(rbind, lapply(names(rules), function(rule) {
    cols <- schema[[rule]]
    data.frame(rule = rep(rule, length(cols$table)), table = cols$table, column = cols$column)
  }))
  checks <- checks[checks$table %in% present, , drop = FALSE]
  checks <- checks[mapply(function(t, col) col %in% colnames(lazy[[t]]), checks$table, checks$column), , drop = FALSE]
  checks$flag <- sprintf("rule_%d", seq_len(nrow(checks)))
  broken <- logical(nrow(checks))
  for (t in unique(checks$table)) {
    mine <- which(checks$table == t)
    flags <- lapply(mine, function(i) {
      breaks <- rules[[checks$rule[[i]]]]$breaks(checks$column[[i]])
      rlang::expr(max(dplyr::if_else(!!breaks, 1L, 0L), na.rm = TRUE))
    })
    names(flags) <- checks$flag[mine]
    found <- dplyr::collect(dplyr::summarise(lazy[[t]], !!!flags))
    broken[mine] <- vapply(checks$flag[mine], function(f) db_number(found[[f]]) > 0, logical(1))
  }
  if (!any(broken)) {
    return(invisible())
  }
  first <- which(broken)[[1L]]
  t <- checks$table[[first]]
  col <- checks$column[[first]]
  rule <- rules[[checks$rule[[first]]]]
  row <- dplyr::collect(utils::head(dplyr::filter(lazy[[t]], !!rule$breaks(col)), 1L))
  fail(t, col, row$sample_id, rule$message(row[[col]]))
}

# The primary and foreign keys of the per-sample tables (a foreign key into a
# table the profile does not have is not checked, as in memory).
db_check_keys <- function(lazy, present, fail) {
  schema <- v2_schema()
  pk <- schema$primary_keys
  for (i in which(pk$table %in% present)) {
    col <- pk$column[[i]]
    repeated <- dplyr::filter(
      dplyr::summarise(dplyr::group_by(lazy[[pk$table[[i]]]], .data[[col]]), n_rows = dplyr::n()),
      .data$n_rows > 1L
    )
    row <- dplyr::collect(utils::head(repeated, 1L))
    if (nrow(row)) {
      fail(pk$table[[i]], col, row[[col]], sprintf("is the primary key but %s occurs more than once", format_id(row[[col]])))
    }
  }
  fk <- schema$foreign_keys
  for (i in which(fk$table %in% present & fk$ref_table %in% names(lazy))) {
    col <- fk$column[[i]]
    child <- dplyr::filter(lazy[[fk$table[[i]]]], !is.na(.data[[col]]))
    parent <- dplyr::select(lazy[[fk$ref_table[[i]]]], dplyr::all_of(fk$ref_column[[i]]))
    by <- stats::setNames(fk$ref_column[[i]], col)
    row <- dplyr::collect(utils::head(dplyr::anti_join(child, parent, by = by), 1L))
    if (nrow(row)) {
      fail(fk$table[[i]], col, row$sample_id, sprintf(
        "value %s has no match in `%s`.`%s`", format_id(row[[col]]), fk$ref_table[[i]], fk$ref_column[[i]]
      ))
    }
  }
}

db_check_unique_types <- function(values, fail) {
  repeated <- dplyr::filter(
    dplyr::summarise(dplyr::group_by(values, .data$sample_id, .data$type), n_rows = dplyr::n(), .groups = "drop"),
    .data$n_rows > 1L
  )
  row <- dplyr::collect(utils::head(repeated, 1L))
  if (nrow(row)) {
    fail("sample_values", "type", row$sample_id, sprintf(
      "(`sample_id`, `type`) must be unique but (%s, \"%s\") occurs more than once",
      format_id(row$sample_id), row$type
    ))
  }
}

# Depths run 1..n in each sample: all of them within 1..n and n distinct ones.
db_check_depths <- function(stack, fail) {
  per_sample <- dplyr::summarise(dplyr::group_by(stack, .data$sample_id),
    n_rows = dplyr::n(), lowest = min(.data$depth, na.rm = TRUE),
    highest = max(.data$depth, na.rm = TRUE), n_depths = dplyr::n_distinct(.data$depth)
  )
  bad <- dplyr::filter(per_sample, .data$lowest < 1L | .data$highest > .data$n_rows | .data$n_depths < .data$n_rows)
  row <- dplyr::collect(utils::head(bad, 1L))
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
  sample <- row$sample_id
  repeated <- dplyr::filter(
    dplyr::summarise(
      dplyr::group_by(dplyr::filter(stack, .data$sample_id == !!sample), .data$depth),
      n_rows = dplyr::n()
    ),
    .data$n_rows > 1L
  )
  depth <- dplyr::collect(utils::head(repeated, 1L))$depth
  fail("sample_locations", "depth", sample, sprintf(
    "(`sample_id`, `depth`) must be unique but (%s, %s) occurs more than once",
    format_id(sample), format_id(depth)
  ))
}

# ---------------------------------------------------------------------------
# Summaries: the parts of R/stacks.R, with the per-sample tables left in the
# database (`stack` and `values` are lazy tables).

db_profile_parts_tables <- function(x, call) {
  tables <- db_profile_tables(x, call = call)
  local <- tables$local
  local$sample_locations <- tables$lazy$sample_locations
  local$sample_values <- tables$lazy$sample_values
  local
}

# The distinct (type, unit) pairs of sample_values, in order of the first
# sample that has them (then in byte order: a table in a database has no row
# order to tell apart the types of one sample).
db_value_types <- function(values) {
  pairs <- dplyr::collect(dplyr::summarise(
    dplyr::group_by(values, .data$type, .data$unit),
    first_sample = min(.data$sample_id, na.rm = TRUE), .groups = "drop"
  ))
  pairs <- pairs[order(pairs$first_sample, pairs$type, pairs$unit, method = "radix"), , drop = FALSE]
  tibble::new_tibble(list(type = pairs$type, unit = pairs$unit), nrow = nrow(pairs))
}

# The values of sample type `type` (a lazy table of sample_id and value) and
# their sum, after the checks the Rust core makes in memory: no NA value, one
# value of the type per sample.
db_values_of_type <- function(values, type, message, call) {
  chosen <- dplyr::select(dplyr::filter(values, .data$type == !!type), "sample_id", "value")
  counts <- dplyr::collect(dplyr::summarise(chosen,
    grand_total = sum(.data$value, na.rm = TRUE), n_rows = dplyr::n(),
    n_na = sum(dplyr::if_else(is.na(.data$value), 1L, 0L), na.rm = TRUE),
    n_samples = dplyr::n_distinct(.data$sample_id)
  ))
  fail <- function(column, sample_id, what) {
    abort_profile("invalid", message, call = call, detail = sprintf(
      "table `sample_values`, column `%s`, a row with sample_id %s: %s", column, format_id(sample_id), what
    ))
  }
  if (db_number(counts$n_na) > 0) {
    row <- dplyr::collect(utils::head(dplyr::filter(chosen, is.na(.data$value)), 1L))
    fail("value", row$sample_id, "is NA")
  }
  if (db_number(counts$n_samples) < db_number(counts$n_rows)) {
    repeated <- dplyr::filter(
      dplyr::summarise(dplyr::group_by(chosen, .data$sample_id), n_rows = dplyr::n()),
      .data$n_rows > 1L
    )
    sample <- dplyr::collect(utils::head(repeated, 1L))$sample_id
    fail("sample_id", sample, sprintf("sample %s has two values of the chosen type", format_id(sample)))
  }
  list(values = chosen, grand_total = db_number(counts$grand_total))
}

# What ffi_profile_key_totals() returns, computed in the database: self and
# total value per frame key (recursion counted once per sample) and the grand
# total. The key of each location travels to the database as a temporary table.
db_key_totals <- function(parts, type, location_key, n_keys, call) {
  message <- "Can't summarise the profile."
  chosen <- db_values_of_type(parts$values, type, message, call)
  con <- dbplyr::remote_con(parts$values)
  counted <- location_key > 0L
  # the key of the last row of a location id, as in memory
  counted <- counted & !duplicated(parts$locations$location_id, fromLast = TRUE)
  keys <- db_temporary_table(con, tibble::tibble(
    location_id = parts$locations$location_id[counted], key = as.integer(location_key[counted])
  ))
  on.exit(db_drop_table(con, keys$name))
  frames <- dplyr::inner_join(
    dplyr::select(parts$stack, "sample_id", "depth", "location_id"), keys$table,
    by = "location_id"
  )
  # The innermost counted frame: depth 1 when every frame counts.
  innermost <- if (all(location_key > 0L)) {
    dplyr::filter(frames, .data$depth == 1L)
  } else {
    dplyr::ungroup(dplyr::filter(dplyr::group_by(frames, .data$sample_id), .data$depth == min(.data$depth, na.rm = TRUE)))
  }
  per_key <- function(rows) {
    summed <- dplyr::summarise(
      dplyr::group_by(dplyr::inner_join(rows, chosen$values, by = "sample_id"), .data$key),
      value = sum(.data$value, na.rm = TRUE)
    )
    summed <- dplyr::collect(summed)
    out <- numeric(n_keys)
    out[summed$key] <- as.double(summed$value)
    out
  }
  list(
    self_value = per_key(dplyr::select(innermost, "sample_id", "key")),
    total = per_key(dplyr::distinct(dplyr::select(frames, "sample_id", "key"))),
    grand_total = chosen$grand_total
  )
}

# `parts` with the stacks and values of sample type `type` in memory: for a
# database-backed profile, one sample per distinct stack with the summed value
# of its samples (what call trees and folded stacks are made of).
stacks_in_memory <- function(parts, type, call = rlang::caller_env()) {
  if (!is_lazy_table(parts$values)) {
    return(parts)
  }
  chosen <- db_values_of_type(parts$values, type, "Can't build the call tree.", call)
  stacks <- db_stack_signatures(parts$stack)
  grouped <- dplyr::summarise(
    dplyr::group_by(dplyr::left_join(chosen$values, stacks, by = "sample_id"), .data$stack),
    value = sum(.data$value, na.rm = TRUE)
  )
  grouped <- dplyr::collect(grouped)
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

# A lazy table of `sample_id` and `stack`: the frames of each sample as
# "depth:location_id" entries joined by commas, innermost first. Each entry
# names its depth, so the text reads back right in any order; ordered entries
# only make equal stacks group together (SQLite before 3.44 has no ORDER BY in
# aggregates: its rows are fed in the order of an ordered subquery).
db_stack_signatures <- function(stack) {
  con <- dbplyr::remote_con(stack)
  q <- function(x) as.character(DBI::dbQuoteIdentifier(con, x))
  entry <- sprintf("CAST(%s AS TEXT) || ':' || CAST(%s AS TEXT)", q("depth"), q("location_id"))
  db_concatenated(stack, "stack", entry, "depth")
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

# A lazy table of `sample_id` and `name`: the text of `entry` (an SQL
# expression over the columns of `tbl`) of each sample's rows, joined by
# commas, in the order of `order_by`. Dialects: SQLite's group_concat(), and
# string_agg() with ORDER BY (PostgreSQL, DuckDB, SQL Server's dialect aside).
db_concatenated <- function(tbl, name, entry, order_by) {
  con <- dbplyr::remote_con(tbl)
  q <- function(x) as.character(DBI::dbQuoteIdentifier(con, x))
  from <- dbplyr::sql_render(tbl, con = con)
  sql <- if (inherits(con, "SQLiteConnection")) {
    sprintf(
      "SELECT %s, group_concat(%s, ',') AS %s FROM (SELECT * FROM (%s) ORDER BY %s, %s) GROUP BY %s",
      q("sample_id"), entry, q(name), from, q("sample_id"), q(order_by), q("sample_id")
    )
  } else {
    sprintf(
      "SELECT %s, string_agg(%s, ',' ORDER BY %s) AS %s FROM (%s) AS %s GROUP BY %s",
      q("sample_id"), entry, q(order_by), q(name), from, q("rows_of_samples"), q("sample_id")
    )
  }
  dplyr::tbl(con, dbplyr::sql(sql))
}

# The distinct labels of sample_labels numbered (`dictionary`, collected), and
# each sample's set of label numbers as text (`sets`, a lazy table of
# `sample_id` and `labels`).
db_label_sets <- function(labels) {
  con <- dbplyr::remote_con(labels)
  q <- function(x) as.character(DBI::dbQuoteIdentifier(con, x))
  columns <- intersect(v2_schema()$columns$sample_labels$name[-1L], colnames(labels))
  numbered <- dplyr::tbl(con, dbplyr::sql(sprintf(
    "SELECT %s, %s, DENSE_RANK() OVER (ORDER BY %s) AS %s FROM (%s) AS %s",
    q("sample_id"), paste(q(columns), collapse = ", "), paste(q(columns), collapse = ", "),
    q("label_id"), dbplyr::sql_render(labels, con = con), q("labels_of_samples")
  )))
  dictionary <- dplyr::collect(dplyr::distinct(dplyr::select(numbered, "label_id", dplyr::all_of(columns))))
  entry <- sprintf("CAST(%s AS TEXT)", q("label_id"))
  list(
    dictionary = as_schema_types(dictionary[order(dictionary$label_id), , drop = FALSE], "sample_labels"),
    sets = db_concatenated(numbered, "labels", entry, "label_id")
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
  lazy <- tables$lazy
  per_sample <- dplyr::left_join(
    dplyr::select(lazy$samples, "sample_id", "source_id"),
    db_stack_signatures(lazy$sample_locations),
    by = "sample_id"
  )
  labelled <- "sample_labels" %in% names(lazy)
  if (labelled) {
    label_sets <- db_label_sets(lazy$sample_labels)
    per_sample <- dplyr::left_join(per_sample, label_sets$sets, by = "sample_id")
  } else {
    per_sample <- dplyr::mutate(per_sample, labels = NA_character_)
  }
  gauges <- v2_schema()$gauge_types
  values <- dplyr::select(
    dplyr::filter(lazy$sample_values, !.data$type %in% !!gauges),
    "sample_id", "type", "unit", "value"
  )
  rows <- dplyr::summarise(
    dplyr::group_by(
      dplyr::left_join(per_sample, values, by = "sample_id"),
      .data$source_id, .data$stack, .data$labels, .data$type, .data$unit
    ),
    value = sum(.data$value, na.rm = TRUE), first_sample = min(.data$sample_id, na.rm = TRUE),
    .groups = "drop"
  )
  rows <- dplyr::collect(rows)
  aggregated <- aggregated_sample_tables(rows, local)
  if (labelled) {
    aggregated$sample_labels <- label_rows_of_sets(aggregated$label_sets, label_sets$dictionary, local$sample_labels)
  }
  for (t in intersect(names(local), per_sample_tables)) {
    local[[t]] <- as_schema_types(aggregated[[t]], t)
  }
  dm_from_v2_tables(local)
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

db_temporary_table <- function(con, df) {
  db_env$temporary <- db_env$temporary + 1L
  name <- sprintf("profile_tmp_%d_%d", Sys.getpid(), db_env$temporary)
  table <- dplyr::copy_to(con, df, name = name, temporary = TRUE, unique_indexes = list(names(df)[[1L]]))
  list(name = name, table = table)
}

db_drop_table <- function(con, name) {
  DBI::dbExecute(con, paste("DROP TABLE", DBI::dbQuoteIdentifier(con, name)))
}

db_env <- new.env(parent = emptyenv())
db_env$temporary <- 0L
