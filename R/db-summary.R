# Summaries of a database-backed profile: the parts of R/stacks.R with the
# per-sample tables left in the database (see R/db.R).

# ---------------------------------------------------------------------------
# Summaries: the parts of R/stacks.R, with the per-sample tables left in the
# database (`stack` and `values` are db_table()s).

db_summary_parts_tables <- function(x, call) {
  tables <- db_profile_tables(x, call = call)
  local <- tables$local
  stacks <- db_stack_source(x)
  if (is.null(stacks)) {
    local$sample_locations <- tables$db$sample_locations
    local$sample_values <- tables$db$sample_values
  } else {
    # the stack ids and value slots of the layout (R/db-layout.R)
    local$sample_locations <- stacks
    local$sample_values <- stacks
  }
  # the samples whose values count (summary_parts())
  local$samples_db <- tables$db$samples
  # the per-sample views, for what needs each sample (the browser view,
  # speedscope: db_samples_in_memory())
  local$db_views <- list(
    sample_locations = tables$db$sample_locations, sample_values = tables$db$sample_values
  )
  local
}

# ---------------------------------------------------------------------------
# The layout's tables read directly

# The distinct (type, unit) pairs of the profile's values, in order of the
# first source that has them and its slots.
db_stacks_value_types <- function(stacks) {
  con <- stacks$con
  slots <- db_slots(con)
  if (stacks$where != "1 = 1") {
    present <- DBI::dbGetQuery(con, sprintf(
      'SELECT DISTINCT "p"."source_id" FROM %s AS "p" WHERE %s',
      sql_name(con, db_physical$samples), stacks$where
    ))
    present <- as_column_type(present$source_id, "integer")
    slots <- slots[slots$source_id %in% present, , drop = FALSE]
  }
  pairs <- vctrs::vec_unique(slots[c("type", "unit")])
  tibble::new_tibble(list(type = pairs$type, unit = pairs$unit), nrow = nrow(pairs))
}

# An SQL expression of the value of sample type `type` of a row of
# profile_samples ("p"): its source's slot of that type, NULL where its
# source has none.
db_slot_value <- function(con, type) {
  slots <- db_slots(con)
  mine <- slots[slots$type == type, , drop = FALSE]
  column <- function(slot) paste0('"p".', sql_name(con, paste0("value_", slot)))
  if (!nrow(mine)) {
    return("NULL")
  }
  if (length(unique(mine$slot)) == 1L && setequal(mine$source_id, slots$source_id)) {
    return(column(mine$slot[[1L]]))
  }
  cases <- vapply(split(mine$source_id, mine$slot), function(ids) {
    paste(ids, collapse = ", ")
  }, character(1))
  paste0("CASE", paste0(
    ' WHEN "p"."source_id" IN (', cases, ") THEN ", column(names(cases)),
    collapse = ""
  ), " END")
}

# The values of sample type `type` in a database of value slots per sample
# or per source and stack (see db_stacks_in_memory()), summed per `by` (a
# column of those tables: "stack_id" or "source_id"), rows `by` and `value`.
db_stacks_sum <- function(parts, type, by) {
  stacks <- parts$values
  con <- stacks$con
  # per source and stack where whole sources are summarised, else per sample
  table <- if (is.null(stacks$sources)) db_physical$samples else db_physical$source_stacks
  where <- if (is.null(stacks$sources)) stacks$where else stacks$sources
  value <- db_slot_value(con, type)
  derived <- parts$derived
  if (!is.null(derived) && identical(type, derived$type)) {
    # the derived type (`time` of Rprof ticks, see derived_time_type()): the
    # slot of the type it comes from times the factor of the row's source
    value <- db_derived_value(db_slot_value(con, derived$from), derived, '"p"')
    where <- sprintf(
      '(%s) AND "p"."source_id" IN (%s)', where,
      paste(as.integer(derived$source_id), collapse = ", ")
    )
  }
  column <- sql_name(con, by)
  DBI::dbGetQuery(con, sprintf(
    'SELECT "p".%s AS %s, SUM(%s) AS "value" FROM %s AS "p" WHERE %s GROUP BY "p".%s',
    column, column, value, sql_name(con, table), where, column
  ))
}

# The stacks of sample type `type` with their summed values, summed per
# stack id in the database: what stacks_in_memory() returns.
db_stacks_in_memory <- function(parts, type) {
  grouped <- db_stacks_sum(parts, type, "stack_id")
  con <- parts$values$con
  grouped <- grouped[!is.na(grouped$value), , drop = FALSE]
  stack_id <- as_column_type(grouped$stack_id, "integer")
  stack_id <- stack_id[order(stack_id)]
  value <- as.double(grouped$value)[order(as_column_type(grouped$stack_id, "integer"))]
  frames <- db_stack_frames(con, stack_id)
  sample_id <- match(frames$stack_id, stack_id)
  o <- order(sample_id, frames$depth, method = "radix")
  n <- length(stack_id)
  parts$stack <- tibble::new_tibble(list(
    sample_id = sample_id[o], depth = frames$depth[o], location_id = frames$location_id[o]
  ), nrow = length(o))
  parts$values <- tibble::new_tibble(list(
    sample_id = seq_len(n), type = rep(type, n), value = value
  ), nrow = n)
  # one sample per stack, whose values are those of `type` already
  parts$samples <- tibble::new_tibble(
    list(sample_id = seq_len(n), source_id = rep(NA_integer_, n)),
    nrow = n
  )
  parts$derived <- NULL
  parts
}

# The SQL value of the derived type `derived` (see derived_time_type()): the
# expression `value` of the type it comes from times the factor of the
# source of the row (`alias`, whose column `source_id` names it), one branch
# per distinct factor (Rprof runs share a few intervals).
db_derived_value <- function(value, derived, alias) {
  by_factor <- split(derived$source_id, derived$factor)
  branches <- vapply(names(by_factor), function(f) {
    sprintf(
      "WHEN %s.\"source_id\" IN (%s) THEN %s", alias,
      paste(as.integer(by_factor[[f]]), collapse = ", "), format(as.double(f), digits = 17)
    )
  }, "")
  paste0("(", value, ") * CASE ", paste(branches, collapse = " "), " END")
}

# The distinct (type, unit) pairs of sample_values, in order of the first
# sample that has them (then in byte order: a table in a database has no row
# order to tell apart the types of one sample).
db_value_types <- function(values) {
  pairs <- db_query(values$con, paste(
    'SELECT "type", "unit", MIN("sample_id") AS "first_sample"',
    'FROM {values} AS "v" GROUP BY "type", "unit"'
  ), values = values)
  in_order <- order(pairs$first_sample, pairs$type, pairs$unit, method = "radix")
  pairs <- pairs[in_order, , drop = FALSE]
  tibble::new_tibble(list(type = pairs$type, unit = pairs$unit), nrow = nrow(pairs))
}

# The values of sample type `type` of the samples in `samples` (the others
# do not count, as in memory): the query of their `sample_id` and `value`
# (`chosen`, a subquery) and their sum, after the checks the Rust core makes
# in memory: no NA value, one value of the type per sample. The derived type
# (`time` of Rprof ticks, see derived_time_type()) is the type it comes from
# times the factor of the sample's source.
db_values_of_type <- function(parts, type, message, call) {
  values <- parts$values
  con <- values$con
  derived <- parts$derived
  value <- "\"v\".\"value\""
  sources <- ""
  if (!is.null(derived) && identical(type, derived$type)) {
    type <- derived$from
    value <- db_derived_value(value, derived, '"s"')
    sources <- sprintf(
      " AND \"s\".\"source_id\" IN (%s)", paste(as.integer(derived$source_id), collapse = ", ")
    )
  }
  chosen <- sql_fill(
    paste(
      "(SELECT \"v\".\"sample_id\", {value} AS \"value\" FROM {values} AS \"v\"",
      "INNER JOIN {samples} AS \"s\" ON \"v\".\"sample_id\" = \"s\".\"sample_id\"",
      "WHERE \"v\".\"type\" = {type}{sources})"
    ),
    value = value, values = values, samples = parts$samples_db,
    type = sql_string(con, type), sources = sources
  )
  counts <- db_query(con, paste(
    'SELECT SUM("value") AS "grand_total", COUNT(*) AS "n_rows", COUNT("value") AS "n_values",',
    'COUNT(DISTINCT "sample_id") AS "n_samples" FROM {chosen} AS "c"'
  ), chosen = chosen)
  fail <- function(column, sample_id, what) {
    abort_profile("invalid", message, call = call, detail = sprintf(
      "table `sample_values`, column `%s`, a row with sample_id %s: %s",
      column, format_id(sample_id), what
    ))
  }
  if (db_number(counts$n_values) < db_number(counts$n_rows)) {
    row <- db_query(
      con, 'SELECT "sample_id" FROM {chosen} AS "c" WHERE "value" IS NULL LIMIT 1',
      chosen = chosen
    )
    fail("value", row$sample_id, "is NA")
  }
  if (db_number(counts$n_samples) < db_number(counts$n_rows)) {
    row <- db_query(con,
      'SELECT "sample_id" FROM {chosen} AS "c" GROUP BY "sample_id" HAVING COUNT(*) > 1 LIMIT 1',
      chosen = chosen
    )
    fail(
      "sample_id",
      row$sample_id,
      sprintf("sample %s has two values of the chosen type", format_id(row$sample_id))
    )
  }
  list(chosen = chosen, grand_total = db_number(counts$grand_total))
}

# What ffi_profile_key_totals() returns, computed in the database: self and
# total value per frame key (recursion counted once per sample) and the grand
# total. The key of each location travels to the database as a temporary table.
db_key_totals <- function(parts, type, location_key, n_keys, call) {
  values <- db_values_of_type(parts, type, "Can't summarise the profile.", call)
  con <- parts$values$con
  # the key of the last row of a location id, as in memory
  counted <- location_key > 0L & !duplicated(parts$locations$location_id, fromLast = TRUE)
  keys <- db_temporary_table(con, parts$locations$location_id[counted], location_key[counted])
  on.exit(db_drop_table(con, keys))
  # The innermost counted frame: depth 1 when every frame counts.
  innermost <- if (all(location_key > 0L)) {
    'SELECT "sample_id", "key" FROM "frames" WHERE "depth" = 1'
  } else {
    paste(
      'SELECT "f"."sample_id", "f"."key" FROM "frames" AS "f" INNER JOIN',
      '(SELECT "sample_id", MIN("depth") AS "depth" FROM "frames" GROUP BY "sample_id") AS "m"',
      'ON "f"."sample_id" = "m"."sample_id" AND "f"."depth" = "m"."depth"'
    )
  }
  sums <- db_query(con, paste(
    'WITH "chosen" AS {chosen},',
    '"frames" AS (SELECT "s"."sample_id", "s"."depth", "k"."key" FROM {stack} AS "s"',
    'INNER JOIN {keys} AS "k" ON "s"."location_id" = "k"."location_id")',
    'SELECT 1 AS "self", "i"."key", SUM("c"."value") AS "value" FROM ({innermost}) AS "i"',
    'INNER JOIN "chosen" AS "c" ON "i"."sample_id" = "c"."sample_id" GROUP BY "i"."key"',
    "UNION ALL",
    'SELECT 0 AS "self", "d"."key", SUM("c"."value") AS "value"',
    'FROM (SELECT DISTINCT "sample_id", "key" FROM "frames") AS "d"',
    'INNER JOIN "chosen" AS "c" ON "d"."sample_id" = "c"."sample_id" GROUP BY "d"."key"'
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
  if (is_db_stacks(parts$values)) {
    return(db_stacks_in_memory(parts, type))
  }
  if (!is_db_table(parts$values)) {
    return(parts)
  }
  values <- db_values_of_type(parts, type, "Can't build the call tree.", call)
  con <- parts$values$con
  grouped <- db_query(con, paste(
    'SELECT "s"."stack", SUM("c"."value") AS "value" FROM {chosen} AS "c"',
    'LEFT JOIN ({stacks}) AS "s" ON "c"."sample_id" = "s"."sample_id" GROUP BY "s"."stack"'
  ), chosen = values$chosen, stacks = db_stack_signatures(parts$stack))
  grouped <- grouped[order(grouped$stack, method = "radix"), , drop = FALSE]
  n <- nrow(grouped)
  parts$stack <- stack_rows_of_signatures(grouped$stack)
  parts$values <- tibble::new_tibble(list(
    sample_id = seq_len(n), type = rep(type, n), value = as.double(grouped$value)
  ), nrow = n)
  # one sample per stack, whose values are those of `type` already
  parts$samples <- tibble::new_tibble(
    list(sample_id = seq_len(n), source_id = rep(NA_integer_, n)),
    nrow = n
  )
  parts$derived <- NULL
  parts
}

# `parts` (see summary_parts()) with the samples of a database-backed profile
# in memory for the sample types `types` (a data frame of `type` and `unit`,
# see view_types()): one sample per distinct source, time
# and stack, with the sum of the values of each type (what the browser view and
# speedscope files are made of: a view shows the same whether equal stacks at
# the same time are one sample or several).
db_samples_in_memory <- function(parts, types, call = rlang::caller_env()) {
  if (is_db_stacks(parts$values)) {
    # each sample counts here: the per-sample views, not the sums per stack
    parts$stack <- parts$db_views$sample_locations
    parts$values <- parts$db_views$sample_values
  }
  if (!is_db_table(parts$values)) {
    return(parts)
  }
  con <- parts$values$con
  samples <- parts$samples_db
  time <- if ("time" %in% samples$columns) "\"m\".\"time\"" else "NULL"
  type_list <- if (nrow(types)) paste(sql_string(con, types$type), collapse = ", ") else "NULL"
  grouped <- db_query(con, paste(
    "SELECT \"m\".\"source_id\", {time} AS \"time\", \"s\".\"stack\", \"v\".\"type\",",
    "SUM(\"v\".\"value\") AS \"value\" FROM {values} AS \"v\"",
    "INNER JOIN {samples} AS \"m\" ON \"v\".\"sample_id\" = \"m\".\"sample_id\"",
    "LEFT JOIN ({stacks}) AS \"s\" ON \"v\".\"sample_id\" = \"s\".\"sample_id\"",
    "WHERE \"v\".\"type\" IN ({types})",
    "GROUP BY \"m\".\"source_id\", {time}, \"s\".\"stack\", \"v\".\"type\""
  ),
  time = time, values = parts$values, samples = samples,
  stacks = db_stack_signatures(parts$stack), types = type_list
  )
  grouped$source_id <- as_column_type(grouped$source_id, "integer")
  grouped$time <- as.double(grouped$time)
  keys <- grouped[c("source_id", "time", "stack")]
  distinct <- vctrs::vec_unique(keys)
  distinct <- distinct[order(distinct$source_id, distinct$time, distinct$stack, method = "radix"), ,
    drop = FALSE
  ]
  n <- nrow(distinct)
  parts$samples <- tibble::new_tibble(
    list(sample_id = seq_len(n), source_id = distinct$source_id, time = distinct$time),
    nrow = n
  )
  parts$stack <- stack_rows_of_signatures(distinct$stack)
  sample_id <- vctrs::vec_match(keys, distinct)
  parts$values <- tibble::new_tibble(list(
    sample_id = sample_id, type = grouped$type,
    unit = types$unit[match(grouped$type, types$type)], value = as.double(grouped$value)
  ), nrow = nrow(grouped))
  parts$samples_db <- NULL
  parts
}
